//! Checked conversions from numbers that come from outside (HTTP headers, config files, tool
//! arguments) to [`Duration`]s. `Duration::from_secs_f64`, `from_secs_f32`, `mul_f64` and
//! `mul_f32` panic on NaN, negative or overflowing values; `clippy.toml` forbids them and points
//! here. Every conversion takes a named maximum and clamps to it, so a hostile `1e300` becomes
//! "the longest wait we allow" instead of a panic.

use std::time::Duration;

/// `secs` seconds, at most `max`; `None` for NaN and negative values (the caller decides
/// whether that is an error or "absent"). `+∞` and anything above `max` give `max`.
pub fn secs_f64_clamped(secs: f64, max: Duration) -> Option<Duration> {
    if secs.is_nan() || secs < 0.0 {
        return None;
    }
    if secs >= max.as_secs_f64() {
        return Some(max);
    }
    Some(Duration::try_from_secs_f64(secs).map_or(max, |d| d.min(max)))
}

/// `duration × factor`, at most `max`; `None` for a NaN or negative factor.
pub fn mul_f64_clamped(duration: Duration, factor: f64, max: Duration) -> Option<Duration> {
    if factor.is_nan() || factor < 0.0 {
        return None;
    }
    secs_f64_clamped(duration.as_secs_f64() * factor, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: Duration = Duration::from_secs(86_400);

    #[test]
    fn hostile_seconds_are_clamped_or_refused() {
        let cases = [
            (1.5, Some(Duration::from_millis(1500))),
            (0.0, Some(Duration::ZERO)),
            (86_400.0, Some(MAX)),
            (1e30, Some(MAX)),
            (1e300, Some(MAX)),
            (f64::INFINITY, Some(MAX)),
            (f64::MAX, Some(MAX)),
            (-1.0, None),
            (-0.0, Some(Duration::ZERO)),
            (f64::NAN, None),
            (f64::NEG_INFINITY, None),
        ];
        for (secs, expected) in cases {
            assert_eq!(secs_f64_clamped(secs, MAX), expected, "{secs}");
        }
        // A maximum beyond what `Duration` can hold still never panics.
        assert_eq!(secs_f64_clamped(1e300, Duration::MAX), Some(Duration::MAX));
    }

    #[test]
    fn hostile_factors_are_clamped_or_refused() {
        let second = Duration::from_secs(1);
        assert_eq!(
            mul_f64_clamped(second, 2.5, MAX),
            Some(Duration::from_millis(2500))
        );
        assert_eq!(mul_f64_clamped(second, 1e300, MAX), Some(MAX));
        assert_eq!(mul_f64_clamped(Duration::MAX, 2.0, MAX), Some(MAX));
        assert_eq!(mul_f64_clamped(second, f64::NAN, MAX), None);
        assert_eq!(mul_f64_clamped(second, -1.0, MAX), None);
    }
}
