use serde_json::json;

use super::*;

fn listed(text: &str) -> SkillFile {
    SkillFile {
        uri: "skill://pdf/SKILL.md".to_owned(),
        digest: sha256_digest(text.as_bytes()),
        size: text.len() as u64,
    }
}

fn map(value: serde_json::Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

const SKILL_MD: &str = "---\nname: pdf\ndescription: Fill PDF forms\n---\nBody.\n";

#[test]
fn the_listed_bytes_pass() {
    assert_eq!(
        size_and_digest(&listed(SKILL_MD), SKILL_MD.as_bytes()),
        Ok(())
    );
}

#[test]
fn a_wrong_size_is_refused_before_hashing() {
    let served = format!("{SKILL_MD}more");
    assert_eq!(
        size_and_digest(&listed(SKILL_MD), served.as_bytes()),
        Err(SkillRefusal::Size {
            expected: SKILL_MD.len() as u64,
            actual: served.len() as u64
        })
    );
}

#[test]
fn other_bytes_of_the_same_size_are_refused_by_digest() {
    let served = SKILL_MD.replace("Body.", "Evil.");
    let refusal = size_and_digest(&listed(SKILL_MD), served.as_bytes()).unwrap_err();
    assert_eq!(
        refusal,
        SkillRefusal::Digest {
            expected: sha256_digest(SKILL_MD.as_bytes()),
            actual: sha256_digest(served.as_bytes()),
        }
    );
}

#[test]
fn a_malformed_listed_digest_is_refused() {
    let mut entry = listed(SKILL_MD);
    entry.digest = entry.digest.to_uppercase();
    assert!(matches!(
        size_and_digest(&entry, SKILL_MD.as_bytes()),
        Err(SkillRefusal::MalformedDigest { .. })
    ));
}

#[test]
fn the_digest_is_sha256_of_the_bytes_in_lowercase_hex() {
    assert_eq!(
        sha256_digest(b"abc"),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn frontmatter_equal_field_by_field_passes() {
    let listed = map(json!({"name": "pdf", "description": "Fill PDF forms"}));
    assert_eq!(frontmatter(SKILL_MD, &listed), Ok(()));
}

#[test]
fn a_changed_description_is_refused_naming_the_field() {
    let listed = map(json!({"name": "pdf", "description": "Fill PDF forms"}));
    let served = SKILL_MD.replace("Fill PDF forms", "Exfiltrate credentials");
    assert_eq!(
        frontmatter(&served, &listed),
        Err(SkillRefusal::FrontmatterMismatch {
            field: "description".to_owned(),
            file: "\"Exfiltrate credentials\"".to_owned(),
            listed: "\"Fill PDF forms\"".to_owned(),
        })
    );
}

#[test]
fn a_field_only_one_side_has_is_a_mismatch() {
    let listed = map(json!({"name": "pdf", "description": "Fill PDF forms", "license": "MIT"}));
    assert!(matches!(
        frontmatter(SKILL_MD, &listed),
        Err(SkillRefusal::FrontmatterMismatch { field, .. }) if field == "license"
    ));
}

#[test]
fn nested_frontmatter_compares_as_json() {
    let text = "---\nname: pdf\ndescription: d\nmetadata:\n  author: me\n  tags: [a, b]\n---\n";
    let listed = map(json!({"name": "pdf", "description": "d",
        "metadata": {"author": "me", "tags": ["a", "b"]}}));
    assert_eq!(frontmatter(text, &listed), Ok(()));
}

#[test]
fn missing_or_unclosed_frontmatter_is_refused() {
    let listed = map(json!({"name": "pdf", "description": "d"}));
    for text in [
        "no frontmatter\n",
        "---\nname: pdf\n",
        "---\n- a list\n---\n",
    ] {
        assert!(
            matches!(
                frontmatter(text, &listed),
                Err(SkillRefusal::Frontmatter { .. })
            ),
            "{text:?}"
        );
    }
}

#[test]
fn crlf_and_a_byte_order_mark_are_accepted() {
    let text = "\u{feff}---\r\nname: pdf\r\ndescription: d\r\n---\r\nBody\r\n";
    let listed = map(json!({"name": "pdf", "description": "d"}));
    assert_eq!(frontmatter(text, &listed), Ok(()));
}

#[test]
fn content_bytes_takes_the_one_item_for_the_uri() {
    let uri = "skill://pdf/a.bin";
    let blob = ResourceContent::Blob {
        uri: uri.to_owned(),
        mime_type: None,
        blob_base64: "AAEC".to_owned(),
    };
    assert_eq!(content_bytes(uri, &[blob]), Ok(vec![0, 1, 2]));
    assert!(matches!(
        content_bytes(uri, &[]),
        Err(SkillRefusal::Content { .. })
    ));
}
