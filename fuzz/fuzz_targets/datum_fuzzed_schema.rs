#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    avrokit_fuzz::checks::check_datum_fuzzed_schema(data);
});
