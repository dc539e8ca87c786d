// The reference tokenizer: js-tiktoken, which ships the rank files of each encoding, so it
// counts offline. One JSON request a line on stdin, one answer a line on stdout:
//
//   node tests/oracle/reference_tokens.mjs [--js-tiktoken DIR]
//   {"encoding": "o200k_base", "path": "/abs/file"}  -> {"tokens": N}
//   {"encoding": "cl100k_base", "text": "..."}       -> {"tokens": N}
//
// A file is read as UTF-8 (invalid bytes become U+FFFD, as sextant decodes them). The
// package is loaded from --js-tiktoken (default: target/npm-tools/node_modules/js-tiktoken
// of this checkout).

import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const flag = process.argv.indexOf("--js-tiktoken");
const packageDir = flag > 0
    ? path.resolve(process.argv[flag + 1])
    : path.join(here, "..", "..", "target", "npm-tools", "node_modules", "js-tiktoken");
const { getEncoding } = createRequire(path.join(packageDir, "package.json"))(packageDir);

const encodings = new Map();
function encoding(name) {
    if (!encodings.has(name)) encodings.set(name, getEncoding(name));
    return encodings.get(name);
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    const text = request.path !== undefined
        ? new TextDecoder("utf-8").decode(fs.readFileSync(request.path))
        : request.text;
    // Special tokens are ordinary text in source files, as sextant counts them.
    const tokens = encoding(request.encoding).encode(text, [], []).length;
    process.stdout.write(JSON.stringify({ tokens }) + "\n");
}
