fn main() -> std::process::ExitCode {
    sextant::cli::main()
}
