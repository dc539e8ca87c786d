//! The `sextant` binary: the command-line front end (`cli`) does everything.
fn main() -> std::process::ExitCode {
    sextant::cli::main()
}
