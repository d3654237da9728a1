//! Runs fuzz inputs through a target's checks without libFuzzer and prints what each gave and
//! how long it took: `cargo run --release --example replay -- <target> <file>...`.

use std::time::Instant;

use avrokit_fuzz::checks;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (target, files) = args
        .split_first()
        .expect("usage: replay <target> <file>...");
    let check: fn(&[u8]) -> checks::Outcome = match target.as_str() {
        "schema_parse" => checks::check_schema_parse,
        "datum_fixed_schema" => checks::check_datum_fixed_schema,
        "datum_fuzzed_schema" => checks::check_datum_fuzzed_schema,
        "resolved" => checks::check_resolved,
        "container_read" => checks::check_container_read,
        "json_decode" => checks::check_json_decode,
        "idl_parse" => |data| match avrokit_fuzz::idl::check_idl_parse(data) {
            avrokit_fuzz::idl::IdlOutcome::Skipped => checks::Outcome::Skipped,
            avrokit_fuzz::idl::IdlOutcome::Rejected => {
                checks::Outcome::Rejected(avrokit::ErrorKind::Schema)
            }
            avrokit_fuzz::idl::IdlOutcome::Accepted => checks::Outcome::Accepted,
        },
        t => panic!("no target {t}"),
    };
    for f in files {
        let data = std::fs::read(f).unwrap();
        let t = Instant::now();
        let outcome = check(&data);
        println!("{f}: {outcome:?} in {:?}", t.elapsed());
    }
}
