// Parses files with one build of the Python grammar and prints, per file, a hash of every
// node (kind, field, byte range, missing/error flags), or the whole listing with -v. With
// -e N it also makes N pseudo-random edits per file and checks that each incremental
// reparse equals a fresh parse of the edited text: the patched scanner reads less ahead,
// and tree-sitter reuses a token only if its edit is beyond what the scanner read.
#include <tree_sitter/api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const TSLanguage *tree_sitter_python(void);

typedef struct {
    uint64_t hash;
    FILE *out;
} Sink;

static void emit(Sink *sink, const char *text) {
    for (const char *c = text; *c; c++) sink->hash = (sink->hash ^ (unsigned char)*c) * 1099511628211ULL;
    if (sink->out) fputs(text, sink->out);
}

static uint64_t dump_tree(TSTree *tree, FILE *out) {
    Sink sink = {1469598103934665603ULL, out};
    TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
    unsigned depth = 0;
    char line[512];
    for (;;) {
        TSNode node = ts_tree_cursor_current_node(&cursor);
        const char *field = ts_tree_cursor_current_field_name(&cursor);
        snprintf(line, sizeof line, "%u %s%s%s %u-%u%s%s\n", depth, field ? field : "", field ? ":" : "",
                 ts_node_type(node), ts_node_start_byte(node), ts_node_end_byte(node),
                 ts_node_is_missing(node) ? " missing" : "", ts_node_is_error(node) ? " error" : "");
        emit(&sink, line);
        if (ts_tree_cursor_goto_first_child(&cursor)) { depth++; continue; }
        while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
            if (!ts_tree_cursor_goto_parent(&cursor)) { ts_tree_cursor_delete(&cursor); return sink.hash; }
            depth--;
        }
    }
}

static uint64_t rng = 88172645463325252ULL;
static uint32_t next_random(uint32_t bound) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)(rng % bound);
}

static TSPoint point_at(const char *text, uint32_t offset) {
    TSPoint p = {0, 0};
    for (uint32_t i = 0; i < offset; i++) {
        if (text[i] == '\n') { p.row++; p.column = 0; } else p.column++;
    }
    return p;
}

// Snippets that change what the scanner decides: comments, line breaks, indentation,
// line continuations, string starts, dedented code.
static const char *SNIPPETS[] = {"#", "# c\n", "\n", "    ", "\t", "\\", "\\\n", "x", "\"", "'''", "\n# c\nx = 1\n",
                                 "\ndef f():\n", "\n  ", ")", "except E:\n"};

// Replaces a random range of *text (up to 8 bytes) by a random snippet, edits the tree.
static void random_edit(char **text, uint32_t *len, TSTree *tree) {
    uint32_t start = next_random(*len + 1);
    uint32_t removed = next_random(9);
    if (start + removed > *len) removed = *len - start;
    const char *snippet = SNIPPETS[next_random(sizeof SNIPPETS / sizeof *SNIPPETS)];
    uint32_t added = (uint32_t)strlen(snippet);
    char *edited = malloc(*len - removed + added + 1);
    memcpy(edited, *text, start);
    memcpy(edited + start, snippet, added);
    memcpy(edited + start + added, *text + start + removed, *len - start - removed);
    uint32_t new_len = *len - removed + added;
    edited[new_len] = 0;
    TSInputEdit edit = {start, start + removed, start + added, point_at(*text, start),
                        point_at(*text, start + removed), point_at(edited, start + added)};
    ts_tree_edit(tree, &edit);
    free(*text);
    *text = edited;
    *len = new_len;
}

// Returns how many incremental reparses differed from a fresh parse.
static int check_edits(TSParser *parser, TSTree *tree, char *text, uint32_t len, int edits) {
    int failures = 0;
    char *copy = malloc(len + 1);
    memcpy(copy, text, len + 1);
    text = copy;
    for (int i = 0; i < edits; i++) {
        random_edit(&text, &len, tree);
        TSTree *incremental = ts_parser_parse_string(parser, tree, text, len);
        TSTree *fresh = ts_parser_parse_string(parser, NULL, text, len);
        if (dump_tree(incremental, NULL) != dump_tree(fresh, NULL)) failures++;
        ts_tree_delete(fresh);
        ts_tree_delete(tree);
        tree = incremental;
    }
    ts_tree_delete(tree);
    free(text);
    return failures;
}

static char *read_file(const char *path, uint32_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc(n + 1);
    *len = (uint32_t)fread(text, 1, n, f);
    text[*len] = 0;
    fclose(f);
    return text;
}

int main(int argc, char **argv) {
    int verbose = 0, edits = 0, first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "-v")) verbose = 1;
        else if (!strcmp(argv[first], "-e") && first + 1 < argc) edits = atoi(argv[++first]);
    }
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, tree_sitter_python());
    for (int a = first; a < argc; a++) {
        uint32_t len;
        char *text = read_file(argv[a], &len);
        if (!text) { printf("unreadable %s\n", argv[a]); continue; }
        TSTree *tree = ts_parser_parse_string(parser, NULL, text, len);
        uint64_t hash = dump_tree(tree, verbose ? stdout : NULL);
        int failures = edits ? check_edits(parser, ts_tree_copy(tree), text, len, edits) : 0;
        printf("%016llx %d %s\n", (unsigned long long)hash, failures, argv[a]);
        ts_tree_delete(tree);
        free(text);
    }
    ts_parser_delete(parser);
    return 0;
}
