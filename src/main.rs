//! The `sextant` binary: the command-line front end (`cli`) does everything.
fn main() -> std::process::ExitCode {
    sextant::allocator::use_for_tree_sitter();
    sextant::cli::main()
}
