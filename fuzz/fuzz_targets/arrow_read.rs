#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    avrokit_fuzz::arrow::check_arrow_read(data);
});
