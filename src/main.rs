//! The `litebench` binary: everything it does is in the library, from [`litebench::app`] down.

fn main() {
    std::process::exit(litebench::app::main());
}
