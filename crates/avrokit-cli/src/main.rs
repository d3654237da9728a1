//! The `avrokit` command-line tool. Subcommands arrive with the container-file issue.

fn main() {
    eprintln!("avrokit: no subcommands yet (see the project's issues)");
    std::process::exit(2);
}
