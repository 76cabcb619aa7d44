//! AWS Signature Version 4 for Bedrock requests, on `ring`'s SHA-256 and HMAC (already in the
//! tree for TLS) rather than the AWS SDK. Signs the method, the path, the query, the `host`,
//! `x-amz-date` and any given headers (plus `x-amz-security-token` for temporary credentials)
//! and the payload hash, and returns the headers to add.
//!
//! Non-S3 rules: each path segment of the (already percent-encoded) request path is encoded a
//! second time in the canonical request; query pairs are sorted. Checked against AWS's
//! published test vectors (`get-vanilla`, `get-vanilla-query-order-key-case`, the IAM
//! `ListUsers` example) in the tests below.
//! Reference: <https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html>.

use std::time::SystemTime;

use coyote_protocol::AwsCredentials;
use ring::{digest, hmac};

use crate::http::encode_path_segment;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(digest::digest(&digest::SHA256, bytes).as_ref())
}

fn hmac_sha256(key: &[u8], data: &[u8]) -> Vec<u8> {
    hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), data)
        .as_ref()
        .to_vec()
}

/// `(YYYYMMDD, YYYYMMDDTHHMMSSZ)` of `time` in UTC.
fn amz_dates(time: SystemTime) -> (String, String) {
    let utc = coyote_protocol::utc::UtcTime::of(time);
    let date = utc.compact_date();
    let (h, m, s) = utc.clock();
    let stamp = format!("{date}T{h:02}{m:02}{s:02}Z");
    (date, stamp)
}

/// What is signed: one request.
#[derive(Debug)]
pub(crate) struct SignRequest<'a> {
    pub method: &'a str,
    pub url: &'a url::Url,
    /// Extra headers to sign, lowercase names (e.g. `content-type`).
    pub headers: &'a [(&'a str, &'a str)],
    pub payload: &'a [u8],
}

/// Where and as whom.
#[derive(Debug)]
pub(crate) struct Scope<'a> {
    pub credentials: &'a AwsCredentials,
    pub region: &'a str,
    pub service: &'a str,
    pub time: SystemTime,
}

/// The headers to add to `request`: `x-amz-date`, `x-amz-security-token` (temporary
/// credentials) and `authorization`.
pub(crate) fn sign(scope: &Scope<'_>, request: &SignRequest<'_>) -> Vec<(&'static str, String)> {
    let (date, stamp) = amz_dates(scope.time);
    let host = match request.url.port() {
        Some(port) => format!("{}:{port}", request.url.host_str().unwrap_or("")),
        None => request.url.host_str().unwrap_or("").to_string(),
    };
    let token = scope
        .credentials
        .session_token
        .as_ref()
        .map(|t| t.expose_secret().to_string());
    let mut headers: Vec<(String, String)> = request
        .headers
        .iter()
        .map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    headers.push(("host".into(), host));
    headers.push(("x-amz-date".into(), stamp.clone()));
    if let Some(token) = &token {
        headers.push(("x-amz-security-token".into(), token.clone()));
    }
    headers.sort();
    let canonical_headers: String = headers.iter().map(|(n, v)| format!("{n}:{v}\n")).collect();
    let signed_headers = headers
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(";");
    let path = request.url.path();
    let canonical_uri = if path.is_empty() || path == "/" {
        "/".to_string()
    } else {
        path.split('/')
            .map(encode_path_segment)
            .collect::<Vec<_>>()
            .join("/")
    };
    let mut pairs: Vec<(String, String)> = request
        .url
        .query_pairs()
        .map(|(k, v)| (encode_path_segment(&k), encode_path_segment(&v)))
        .collect();
    pairs.sort();
    let canonical_query = pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    let canonical_request = format!(
        "{}\n{canonical_uri}\n{canonical_query}\n{canonical_headers}\n{signed_headers}\n{}",
        request.method,
        sha256_hex(request.payload)
    );
    let credential_scope = format!("{date}/{}/{}/aws4_request", scope.region, scope.service);
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{stamp}\n{credential_scope}\n{}",
        sha256_hex(canonical_request.as_bytes())
    );
    let secret = format!(
        "AWS4{}",
        scope.credentials.secret_access_key.expose_secret()
    );
    let mut key = hmac_sha256(secret.as_bytes(), date.as_bytes());
    for part in [scope.region, scope.service, "aws4_request"] {
        key = hmac_sha256(&key, part.as_bytes());
    }
    let signature = hex(&hmac_sha256(&key, string_to_sign.as_bytes()));
    let mut out = vec![("x-amz-date", stamp)];
    if let Some(token) = token {
        out.push(("x-amz-security-token", token));
    }
    out.push((
        "authorization",
        format!(
            "AWS4-HMAC-SHA256 Credential={}/{credential_scope}, SignedHeaders={signed_headers}, \
             Signature={signature}",
            scope.credentials.access_key_id
        ),
    ));
    out
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use coyote_protocol::ApiKey;

    use super::*;

    fn credentials() -> AwsCredentials {
        AwsCredentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: ApiKey::new("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            session_token: None,
        }
    }

    /// 2015-08-30T12:36:00Z, the time of AWS's test suite.
    fn vector_time() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_440_938_160)
    }

    fn authorization(service: &str, method: &str, url: &str, headers: &[(&str, &str)]) -> String {
        let credentials = credentials();
        let url = url::Url::parse(url).unwrap();
        let scope = Scope {
            credentials: &credentials,
            region: "us-east-1",
            service,
            time: vector_time(),
        };
        let request = SignRequest {
            method,
            url: &url,
            headers,
            payload: b"",
        };
        sign(&scope, &request)
            .into_iter()
            .find(|(n, _)| *n == "authorization")
            .unwrap()
            .1
    }

    #[test]
    fn dates_are_utc_civil_dates() {
        assert_eq!(
            amz_dates(vector_time()),
            ("20150830".to_string(), "20150830T123600Z".to_string())
        );
        assert_eq!(amz_dates(UNIX_EPOCH).1, "19700101T000000Z");
        // 2024-02-29T23:59:59Z: a leap day.
        assert_eq!(
            amz_dates(UNIX_EPOCH + Duration::from_secs(1_709_251_199)).1,
            "20240229T235959Z"
        );
    }

    #[test]
    fn aws_test_suite_get_vanilla() {
        assert_eq!(
            authorization("service", "GET", "https://example.amazonaws.com/", &[]),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
             SignedHeaders=host;x-amz-date, \
             Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
    }

    #[test]
    fn aws_test_suite_get_vanilla_query_order_key_case() {
        let header = authorization(
            "service",
            "GET",
            "https://example.amazonaws.com/?Param2=value2&Param1=value1",
            &[],
        );
        assert!(
            header.ends_with(
                "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
            ),
            "{header}"
        );
    }

    #[test]
    fn aws_documentation_iam_list_users_example() {
        let header = authorization(
            "iam",
            "GET",
            "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08",
            &[(
                "content-type",
                "application/x-www-form-urlencoded; charset=utf-8",
            )],
        );
        assert_eq!(
            header,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date, \
             Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
        );
    }

    #[test]
    fn temporary_credentials_sign_and_send_the_session_token() {
        let mut credentials = credentials();
        credentials.session_token = Some(ApiKey::new("session-tok"));
        let url = url::Url::parse("http://127.0.0.1:9/model/a%3A0/converse").unwrap();
        let scope = Scope {
            credentials: &credentials,
            region: "eu-west-1",
            service: "bedrock",
            time: vector_time(),
        };
        let request = SignRequest {
            method: "POST",
            url: &url,
            headers: &[("content-type", "application/json")],
            payload: b"{}",
        };
        let headers = sign(&scope, &request);
        assert_eq!(headers[1], ("x-amz-security-token", "session-tok".into()));
        assert!(
            headers[2].1.contains(
                "/20150830/eu-west-1/bedrock/aws4_request, \
                 SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, "
            ),
            "{headers:?}"
        );
    }
}
