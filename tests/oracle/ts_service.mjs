// The TypeScript language service as an oracle: a long-running process that answers
// goto-definition and find-references questions about one project, one JSON object a line.
//
//   node tests/oracle/ts_service.mjs --tree DIR [--tsconfig FILE] [--typescript DIR]
//
// The project is the tsconfig (--tsconfig, else DIR/tsconfig.json when it exists), else every
// .ts/.tsx/.mts/.cts/.js/.jsx/.mjs/.cjs file under DIR outside node_modules and dot-directories,
// compiled with strict defaults (ESNext, bundler resolution, allowJs, JSX preserved, no ambient
// @types packages). The `typescript` package is loaded from --typescript (default:
// target/npm-tools/node_modules/typescript of this checkout); it must be 5.x, whose
// `createLanguageService` this script drives.
//
// Requests (stdin), each {"id": any, "op": ..., ...}; every reply (stdout) is {"id", "result"}
// or {"id", "error"}. Files in requests and answers are paths relative to DIR (answers outside
// it are absolute). Lines are 1-based and split at "\n"; columns are 1-based and count Unicode
// characters (code points), as sextant counts them; `offset` is TypeScript's (UTF-16 units).
//
//   {"op": "info"}                        -> {typescript, tree, tsconfig, files: N}
//   {"op": "files"}                       -> [file]        project sources under DIR, no .d.ts
//   {"op": "identifiers", "file"}         -> [{offset, line, column, name, context}]  but `this: T`
//   {"op": "declarations", "file", "members"?} -> [{offset, line, column, name, kind}]  top-level
//                                        ones; with `members`, the members of top-level classes
//                                        and interfaces instead (kind "member")
//   {"op": "definition", "file", "offset"} -> [location]   getDefinitionAtPosition
//   {"op": "references", "file", "offset"} -> [location]   findReferences, every symbol it groups
//   {"op": "implementations", "file", "offset"} -> [location]   getImplementationAtPosition,
//                                                each with `kind` (the service's element kind) and
//                                                `declares`: "class", "interface" or "method" when
//                                                the span is such a declaration's name (not an
//                                                expression)
//   {"op": "methods", "file"}             -> [{offset, line, column, name, container, overloads}]
//                                            the methods of the file's top-level classes and
//                                            interfaces; `overloads`: [{line, column}] of each of
//                                            a method's declarations
//
// A location is {file, offset, end, line, column, name, kind, where, definition?, write?,
// comment?, symbol?}: the name's span (a whole file for a module); `where` is "project" (a file
// under DIR outside node_modules), "lib" (TypeScript's own lib.*.d.ts), "node_modules" or
// "outside"; a reference has `comment` when it is in a doc comment (`{@link name}`).
// A definition in the project has `symbol` too: every declaration of the symbol it names, as
// [{file, line, column}] (the overloads of a function, of which the service names only the
// signature a call resolves to).

import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

function fatal(message) {
    process.stderr.write(`ts_service.mjs: ${message}\n`);
    process.exit(2);
}

function parseArgs(argv) {
    const args = { tree: null, tsconfig: null, typescript: null };
    for (let i = 0; i < argv.length; i++) {
        const key = argv[i].replace(/^--/, "");
        if (!(key in args) || i + 1 >= argv.length) {
            fatal(`usage: ts_service.mjs --tree DIR [--tsconfig FILE] [--typescript DIR] (bad argument ${argv[i]})`);
        }
        args[key] = argv[++i];
    }
    if (!args.tree) fatal("--tree DIR is required");
    return args;
}

const args = parseArgs(process.argv.slice(2));
const here = path.dirname(fileURLToPath(import.meta.url));
const tsDir = path.resolve(args.typescript ?? path.join(here, "..", "..", "target", "npm-tools", "node_modules", "typescript"));
let ts;
try {
    ts = createRequire(import.meta.url)(tsDir);
} catch (e) {
    fatal(`cannot load typescript from ${tsDir} (scripts/test installs it there): ${e.message.split("\n")[0]}`);
}
if (typeof ts.createLanguageService !== "function" || !String(ts.version).startsWith("5.")) {
    fatal(`${tsDir} is TypeScript ${ts.version}; this script needs 5.x (the createLanguageService API)`);
}
if (!fs.existsSync(args.tree) || !fs.statSync(args.tree).isDirectory()) fatal(`${args.tree}: not a directory`);
const tree = fs.realpathSync(path.resolve(args.tree));
const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

function scanTree(dir, out) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) scanTree(full, out);
        else if (entry.isFile() && SOURCE.test(entry.name)) out.push(full);
    }
    return out;
}

function loadProject() {
    const tsconfig = args.tsconfig
        ? path.resolve(args.tsconfig)
        : fs.existsSync(path.join(tree, "tsconfig.json"))
          ? path.join(tree, "tsconfig.json")
          : null;
    if (tsconfig) {
        const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fatal(ts.flattenDiagnosticMessageText(d.messageText, "\n")) };
        const parsed = ts.getParsedCommandLineOfConfigFile(tsconfig, { noEmit: true }, host);
        // A solution-style tsconfig lists no files itself (only project references).
        const files = parsed.fileNames.length ? parsed.fileNames : scanTree(tree, []);
        return { tsconfig, options: { ...parsed.options, noEmit: true }, files };
    }
    const options = {
        target: ts.ScriptTarget.ESNext,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        allowJs: true,
        checkJs: false,
        jsx: ts.JsxEmit.Preserve,
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        resolveJsonModule: true,
        allowImportingTsExtensions: true,
        // No ambient @types packages from node_modules directories above the tree.
        types: [],
    };
    return { tsconfig: null, options, files: scanTree(tree, []) };
}

const project = loadProject();
const rootFiles = project.files.map((f) => path.resolve(f));
const texts = new Map();

function readText(file) {
    let text = texts.get(file);
    if (text === undefined) {
        text = ts.sys.readFile(file);
        texts.set(file, text);
    }
    return text;
}

const host = {
    getScriptFileNames: () => rootFiles,
    getScriptVersion: () => "1",
    getScriptSnapshot: (file) => {
        const text = readText(file);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => tree,
    getCompilationSettings: () => project.options,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
    realpath: ts.sys.realpath,
    useCaseSensitiveFileNames: () => ts.sys.useCaseSensitiveFileNames,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const libDir = path.dirname(ts.getDefaultLibFilePath(project.options));

// Paths: relative to the tree inside it, absolute outside.
function relative(file) {
    const rel = path.relative(tree, path.resolve(file));
    return rel.startsWith("..") || path.isAbsolute(rel) ? path.resolve(file) : rel.split(path.sep).join("/");
}

function absolute(file) {
    return path.resolve(tree, file);
}

function where(file) {
    const abs = path.resolve(file);
    const rel = path.relative(tree, abs);
    if (!rel.startsWith("..") && !path.isAbsolute(rel)) {
        return rel.split(path.sep).includes("node_modules") ? "node_modules" : "project";
    }
    if (path.dirname(abs) === libDir) return "lib";
    return abs.split(path.sep).includes("node_modules") ? "node_modules" : "outside";
}

// Line starts per file, for 1-based lines split at "\n" and code-point columns.
const lineStarts = new Map();

function position(file, offset) {
    const text = readText(path.resolve(file)) ?? "";
    let starts = lineStarts.get(file);
    if (!starts) {
        starts = [0];
        for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
        lineStarts.set(file, starts);
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= offset) lo = mid;
        else hi = mid - 1;
    }
    return { line: lo + 1, column: [...text.slice(starts[lo], offset)].length + 1 };
}

function location(file, span, extra) {
    const text = readText(path.resolve(file)) ?? "";
    return {
        file: relative(file),
        offset: span.start,
        end: span.start + span.length,
        ...position(file, span.start),
        name: text.slice(span.start, span.start + Math.min(span.length, 80)).split("\n")[0],
        where: where(file),
        ...extra,
    };
}

function sourceFile(file) {
    const sf = service.getProgram().getSourceFile(absolute(file));
    if (!sf) throw new Error(`${file} is not part of the project`);
    return sf;
}

// What syntax an identifier occurrence is part of, to classify disagreements.
function context(node) {
    const parent = node.parent;
    if (!parent) return "other";
    if (ts.isImportSpecifier(parent) || ts.isImportClause(parent) || ts.isNamespaceImport(parent) || ts.isImportEqualsDeclaration(parent)) return "import";
    if (ts.isExportSpecifier(parent)) return "export specifier";
    if (ts.isBindingElement(parent) && parent.name === node && !parent.propertyName && ts.isObjectBindingPattern(parent.parent)) {
        return "destructuring shorthand";
    }
    if (parent.name === node && (ts.isDeclaration(parent) || ts.isPropertyAssignment(parent))) {
        if (ts.isParameter(parent)) return "parameter declaration";
        if (ts.isObjectLiteralExpression(parent.parent)) return "object literal property";
        if (ts.isClassElement(parent) || ts.isTypeElement(parent) || ts.isPropertyAssignment(parent) || ts.isShorthandPropertyAssignment(parent)) return "member declaration";
        return "declaration";
    }
    if (ts.isPropertyAccessExpression(parent) && parent.name === node) return "member access";
    if (ts.isQualifiedName(parent) && parent.right === node) return "qualified type name";
    if (ts.isTypeReferenceNode(parent) || ts.isExpressionWithTypeArguments(parent) || ts.isTypeQueryNode(parent)) return "type reference";
    if (ts.isShorthandPropertyAssignment(parent)) return "shorthand property";
    if (ts.isJsxAttribute(parent) || ts.isJsxOpeningLikeElement(parent) || ts.isJsxClosingElement(parent)) return "jsx";
    if (ts.isBindingElement(parent) && parent.propertyName === node) return "destructured property";
    if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return "label";
    return "use";
}

function identifiers(file) {
    const sf = sourceFile(file);
    const found = [];
    const visit = (node) => {
        // `this: T` declares no name, only the type of `this`.
        if ((ts.isIdentifier(node) && node.text !== "this") || ts.isPrivateIdentifier(node)) {
            const start = node.getStart(sf);
            found.push({ offset: start, ...position(absolute(file), start), name: node.text, context: context(node) });
        }
        ts.forEachChild(node, visit);
    };
    visit(sf);
    return found;
}

function declarations(file, members) {
    const sf = sourceFile(file);
    const found = [];
    const add = (name, kind) => {
        if (name && ts.isIdentifier(name)) {
            const start = name.getStart(sf);
            found.push({ offset: start, ...position(absolute(file), start), name: name.text, kind });
        }
    };
    if (members) {
        for (const statement of sf.statements) {
            if (!ts.isClassDeclaration(statement) && !ts.isInterfaceDeclaration(statement)) continue;
            const seen = new Set();
            for (const member of statement.members) {
                // Overloads and accessor pairs name one member: its first declaration stands for it.
                if (member.name && ts.isIdentifier(member.name) && !seen.has(member.name.text)) {
                    seen.add(member.name.text);
                    add(member.name, "member");
                }
            }
        }
        return found;
    }
    for (const statement of sf.statements) {
        if (ts.isFunctionDeclaration(statement)) {
            // Overloads declare the name once each: the implementation stands for all of them.
            const overloads = sf.statements.filter((s) => ts.isFunctionDeclaration(s) && s.name?.text === statement.name?.text);
            if (statement === (overloads.find((s) => s.body) ?? overloads[0])) add(statement.name, "function");
        } else if (ts.isClassDeclaration(statement)) add(statement.name, "class");
        else if (ts.isInterfaceDeclaration(statement)) add(statement.name, "interface");
        else if (ts.isTypeAliasDeclaration(statement)) add(statement.name, "type");
        else if (ts.isEnumDeclaration(statement)) add(statement.name, "enum");
        else if (ts.isVariableStatement(statement)) {
            for (const d of statement.declarationList.declarations) add(d.name, "variable");
        }
    }
    return found;
}

// The identifier starting at an offset, if any.
function identifierAt(sf, offset) {
    let found;
    const visit = (node) => {
        if (found || node.pos > offset || node.end <= offset) return;
        if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && node.getStart(sf) === offset) found = node;
        else ts.forEachChild(node, visit);
    };
    visit(sf);
    return found;
}

// Every declaration of the symbol named at a definition (all overloads of a function, where the
// service names only the signature a call resolves to), as name locations.
function declarationsOf(file, offset) {
    const program = service.getProgram();
    const sf = program.getSourceFile(file);
    const node = sf && identifierAt(sf, offset);
    const symbol = node && program.getTypeChecker().getSymbolAtLocation(node);
    return (symbol?.declarations ?? []).flatMap((decl) => {
        const name = ts.getNameOfDeclaration(decl);
        if (!name) return [];
        const start = name.getStart(decl.getSourceFile());
        return [{ file: relative(decl.getSourceFile().fileName), ...position(decl.getSourceFile().fileName, start) }];
    });
}

function definition(file, offset) {
    const defs = service.getDefinitionAtPosition(absolute(file), offset) ?? [];
    return defs.map((d) => {
        const loc = location(d.fileName, d.textSpan, { kind: d.kind, container: d.containerName || undefined });
        if (loc.where === "project") loc.symbol = declarationsOf(d.fileName, d.textSpan.start);
        return loc;
    });
}

// Whether a syntax node (not a doc comment, which forEachChild does not enter) starts at offset.
function inCode(file, offset) {
    const sf = service.getProgram().getSourceFile(file);
    if (!sf) return true;
    let found = false;
    const visit = (node) => {
        if (found || node.pos > offset || node.end <= offset) return;
        if (node.getStart(sf) === offset) found = true;
        else ts.forEachChild(node, visit);
    };
    visit(sf);
    return found;
}

function references(file, offset) {
    const groups = service.findReferences(absolute(file), offset) ?? [];
    const seen = new Set();
    const out = [];
    for (const group of groups) {
        for (const r of group.references) {
            const key = `${r.fileName}:${r.textSpan.start}`;
            if (seen.has(key)) continue;
            seen.add(key);
            out.push(location(r.fileName, r.textSpan, {
                definition: !!r.isDefinition,
                write: !!r.isWriteAccess,
                comment: !inCode(r.fileName, r.textSpan.start),
            }));
        }
    }
    return out;
}

// What declaration a name at an offset names: "class", "interface" or undefined.
function declares(file, offset) {
    const sf = service.getProgram().getSourceFile(file);
    const node = sf && identifierAt(sf, offset);
    const parent = node?.parent;
    if (!parent || parent.name !== node) return undefined;
    if (ts.isClassDeclaration(parent) || ts.isClassExpression(parent)) return "class";
    if (ts.isInterfaceDeclaration(parent)) return "interface";
    // A method of an object literal is part of an expression, as the literal is.
    if (ts.isMethodDeclaration(parent) && ts.isObjectLiteralExpression(parent.parent)) return undefined;
    if (ts.isMethodDeclaration(parent) || ts.isMethodSignature(parent)) return "method";
    return undefined;
}

function methods(file) {
    const sf = sourceFile(file);
    const found = [];
    for (const statement of sf.statements) {
        if (!(ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement)) || !statement.name) continue;
        for (const member of statement.members) {
            if (!(ts.isMethodDeclaration(member) || ts.isMethodSignature(member)) || !member.name || !ts.isIdentifier(member.name)) continue;
            const start = member.name.getStart(sf);
            const at = position(absolute(file), start);
            // Overloads name a method once each: the first stands for all of them.
            const known = found.find((m) => m.name === member.name.text && m.container === statement.name.text);
            if (known) {
                known.overloads.push(at);
                continue;
            }
            found.push({ offset: start, ...at, name: member.name.text, container: statement.name.text, overloads: [at] });
        }
    }
    return found;
}

function implementations(file, offset) {
    const found = service.getImplementationAtPosition(absolute(file), offset) ?? [];
    return found.map((i) =>
        location(i.fileName, i.textSpan, { kind: i.kind, declares: declares(i.fileName, i.textSpan.start) }),
    );
}

// Who calls the function or method whose name starts at `offset`: each call site (the
// callee's name in the caller), as the call hierarchy lists them.
function incomingCalls(file, offset) {
    const calls = service.provideCallHierarchyIncomingCalls(absolute(file), offset) ?? [];
    return calls.flatMap((call) =>
        call.fromSpans.map((span) => location(call.from.file, span, { caller: call.from.name })),
    );
}

function handle(request) {
    switch (request.op) {
        case "info":
            return { typescript: ts.version, tree, tsconfig: project.tsconfig, files: rootFiles.length };
        case "files":
            return rootFiles.filter((f) => where(f) === "project" && !/\.d\.[cm]?ts$/.test(f)).map(relative).sort();
        case "identifiers":
            return identifiers(request.file);
        case "declarations":
            return declarations(request.file, request.members);
        case "definition":
            return definition(request.file, request.offset);
        case "references":
            return references(request.file, request.offset);
        case "implementations":
            return implementations(request.file, request.offset);
        case "methods":
            return methods(request.file);
        case "incomingCalls":
            return incomingCalls(request.file, request.offset);
        default:
            throw new Error(`unknown op ${JSON.stringify(request.op)}`);
    }
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
    if (!line.trim()) return;
    let request;
    try {
        request = JSON.parse(line);
    } catch (e) {
        process.stdout.write(JSON.stringify({ id: null, error: `not JSON: ${e.message}` }) + "\n");
        return;
    }
    let reply;
    try {
        reply = { id: request.id, result: handle(request) };
    } catch (e) {
        reply = { id: request.id, error: String(e && e.stack ? e.stack.split("\n")[0] : e) };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
});
