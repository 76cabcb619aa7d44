//! The streaming base64 decoder (SIMD bulk, scalar reference for padding and errors) against
//! the reference engine on the whole text: any text, cut into slices anywhere, decodes to the
//! same bytes or is rejected exactly when the reference rejects it (whitespace skipped).
#![no_main]

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use coyote_mcp::render::fuzzing::decode_base64_in_slices;
use libfuzzer_sys::fuzz_target;

const REFERENCE: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

fuzz_target!(|data: &[u8]| {
    // First bytes: up to 4 cut positions; the rest: the text (mostly base64 characters).
    let (head, text) = data.split_at(data.len().min(4));
    let cuts: Vec<usize> = head.iter().map(|&b| b as usize * 7).collect();
    let got = decode_base64_in_slices(text, &cuts);
    let clean: Vec<u8> = text.iter().copied().filter(|b| !matches!(b, b'\n' | b'\r' | b' ' | b'\t')).collect();
    let expected = REFERENCE.decode(&clean).ok();
    assert_eq!(got, expected, "text {:?} cuts {cuts:?}", String::from_utf8_lossy(text));
});
