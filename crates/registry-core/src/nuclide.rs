//! Nuclides, their half-lives and radioactive decay: the one table every activity calculation
//! reads (QC tests, receipts of material, waste in decay storage), and mCi ↔ MBq.
//!
//! Half-lives are the NNDC (ENSDF) values. `Ra(233)`, the spec's spelling, is read as Ra-223,
//! the therapeutic radium isotope (radium dichloride): Ra-233 does not exist in medicine.

use crate::values::Radioisotope;
use chrono::TimeDelta;
use serde::{Deserialize, Serialize};

/// 1 mCi = 37 MBq exactly (1 Ci = 3.7 × 10¹⁰ Bq).
pub const MBQ_PER_MCI: f64 = 37.0;

pub fn mci_to_mbq(mci: f64) -> f64 {
    mci * MBQ_PER_MCI
}

pub fn mbq_to_mci(mbq: f64) -> f64 {
    mbq / MBQ_PER_MCI
}

const MINUTE: f64 = 60.0;
const HOUR: f64 = 3600.0;
const DAY: f64 = 86_400.0;
/// Julian year, as NNDC quotes long half-lives.
const YEAR: f64 = 365.25 * DAY;

macro_rules! nuclides {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $half_life:expr; )*) => {
        /// A nuclide whose activity the registry computes with: the radioisotopes a facility may be
        /// authorised for, and the long-lived reference sources of dose-calibrator tests.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
        pub enum Nuclide {
            $( $(#[$doc])* #[serde(rename = $name)] $variant, )*
        }

        impl Nuclide {
            pub const ALL: &'static [Nuclide] = &[$(Nuclide::$variant),*];

            /// The name as written in the API (`Tc-99m`, `Co-57`, …).
            pub fn as_str(self) -> &'static str {
                match self { $(Nuclide::$variant => $name),* }
            }

            /// The allowed names, for error messages.
            pub fn allowed() -> String {
                crate::values::names_of(Self::ALL, Self::as_str)
            }

            /// The half-life in seconds.
            pub fn half_life_seconds(self) -> f64 {
                match self { $(Nuclide::$variant => $half_life),* }
            }
        }
    };
}

nuclides! {
    C11 => "C-11", 20.364 * MINUTE;
    Cr51 => "Cr-51", 27.7025 * DAY;
    F18 => "F-18", 109.77 * MINUTE;
    Ga67 => "Ga-67", 3.2617 * DAY;
    Ga68 => "Ga-68", 67.71 * MINUTE;
    I123 => "I-123", 13.2235 * HOUR;
    I125 => "I-125", 59.39 * DAY;
    I131 => "I-131", 8.0252 * DAY;
    In111 => "In-111", 2.8047 * DAY;
    Lu177 => "Lu-177", 6.647 * DAY;
    Ra223 => "Ra-223", 11.43 * DAY;
    Sm153 => "Sm-153", 46.284 * HOUR;
    Tc99m => "Tc-99m", 6.0067 * HOUR;
    Tl201 => "Tl-201", 73.01 * HOUR;
    Y90 => "Y-90", 64.05 * HOUR;
    /// Reference source of dose-calibrator tests.
    Co57 => "Co-57", 271.74 * DAY;
    /// Reference source of dose-calibrator tests.
    Ba133 => "Ba-133", 10.551 * YEAR;
    /// Reference source of dose-calibrator tests.
    Cs137 => "Cs-137", 30.08 * YEAR;
}

impl Nuclide {
    /// Accepts the API name (`Tc-99m`) and the spec's radioisotope spelling (`Tc(99m)`).
    pub fn parse(s: &str) -> Option<Nuclide> {
        Nuclide::ALL
            .iter()
            .copied()
            .find(|n| n.as_str() == s)
            .or_else(|| Radioisotope::parse(s).map(Nuclide::from))
    }

    /// The decay constant λ = ln 2 / T½, per second.
    pub fn decay_constant(self) -> f64 {
        std::f64::consts::LN_2 / self.half_life_seconds()
    }

    /// Whether `span` (either way) is more than [`MAX_DECAY_HALF_LIVES`] half-lives: a decay
    /// over it leaves under a millionth of the activity or grows it a million times (past ≈ 1,000
    /// half-lives it is no longer a number), which only a mistyped date gives.
    pub fn too_many_half_lives(self, span: TimeDelta) -> bool {
        let elapsed = span.num_milliseconds() as f64 / 1000.0;
        (elapsed / self.half_life_seconds()).abs() > MAX_DECAY_HALF_LIVES
    }

    /// `A(t) = A0 · 2^(−Δt / T½)`: the activity `elapsed_seconds` after it was `a0` (any unit; the
    /// answer is in the same one). A negative `elapsed_seconds` goes back in time.
    pub fn decay(self, a0: f64, elapsed_seconds: f64) -> f64 {
        decay(a0, elapsed_seconds, self.half_life_seconds())
    }
}

/// How many half-lives a decay may span between a label or certificate and the moment it is
/// decayed to (receipts, QC sources).
pub const MAX_DECAY_HALF_LIVES: f64 = 20.0;

/// `A(t) = A0 · 2^(−Δt / T½)` for any half-life (same time unit for both).
pub fn decay(a0: f64, elapsed: f64, half_life: f64) -> f64 {
    a0 * (-elapsed / half_life).exp2()
}

impl From<Radioisotope> for Nuclide {
    fn from(r: Radioisotope) -> Nuclide {
        match r {
            Radioisotope::C11 => Nuclide::C11,
            Radioisotope::Cr51 => Nuclide::Cr51,
            Radioisotope::F18 => Nuclide::F18,
            Radioisotope::Ga67 => Nuclide::Ga67,
            Radioisotope::Ga68 => Nuclide::Ga68,
            Radioisotope::I123 => Nuclide::I123,
            Radioisotope::I125 => Nuclide::I125,
            Radioisotope::I131 => Nuclide::I131,
            Radioisotope::In111 => Nuclide::In111,
            Radioisotope::Lu177 => Nuclide::Lu177,
            Radioisotope::Ra233 => Nuclide::Ra223,
            Radioisotope::Sm153 => Nuclide::Sm153,
            Radioisotope::Tc99m => Nuclide::Tc99m,
            Radioisotope::Tl201 => Nuclide::Tl201,
            Radioisotope::Y90 => Nuclide::Y90,
        }
    }
}

impl std::fmt::Display for Nuclide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        ((a - b) / b).abs() < rel
    }

    #[test]
    fn units() {
        assert_eq!(mci_to_mbq(1.0), 37.0);
        assert_eq!(mci_to_mbq(27.0), 999.0);
        assert_eq!(mbq_to_mci(740.0), 20.0);
    }

    #[test]
    fn half_lives_are_the_pinned_values() {
        // Written from the NNDC table, not from the code.
        assert!(close(Nuclide::Tc99m.half_life_seconds(), 21_624.12, 1e-12)); // 6.0067 h
        assert!(close(Nuclide::F18.half_life_seconds(), 6_586.2, 1e-12)); // 109.77 min
        assert!(close(Nuclide::I131.half_life_seconds(), 693_377.28, 1e-12)); // 8.0252 d
        assert!(close(
            Nuclide::Co57.half_life_seconds(),
            23_478_336.0,
            1e-12
        )); // 271.74 d
        assert!(close(
            Nuclide::Cs137.half_life_seconds(),
            949_252_608.0,
            1e-12
        )); // 30.08 a
        assert!(close(
            Nuclide::Ba133.half_life_seconds(),
            332_964_237.6,
            1e-12
        )); // 10.551 a
        assert!(close(Nuclide::C11.half_life_seconds(), 1_221.84, 1e-12)); // 20.364 min
        assert!(close(Nuclide::Ga67.half_life_seconds(), 281_810.88, 1e-12)); // 3.2617 d
        assert!(close(Nuclide::I123.half_life_seconds(), 47_604.6, 1e-12)); // 13.2235 h
        assert!(close(Nuclide::In111.half_life_seconds(), 242_326.08, 1e-12)); // 2.8047 d
        assert_eq!(Nuclide::ALL.len(), 18);
    }

    #[test]
    fn worked_decay_examples() {
        // One half-life halves, two quarter.
        assert!(close(
            Nuclide::Tc99m.decay(100.0, 6.0067 * 3600.0),
            50.0,
            1e-12
        ));
        assert!(close(
            Nuclide::Tc99m.decay(100.0, 2.0 * 6.0067 * 3600.0),
            25.0,
            1e-12
        ));
        // Tc-99m after 1 h: 100 · 2^(−1/6.0067) = 100 · e^(−0.115396…) = 89.1014 mCi.
        assert!(close(Nuclide::Tc99m.decay(100.0, 3600.0), 89.101_35, 1e-6));
        // Cs-137, 10 years: 2^(−10/30.08) = 0.79419.
        assert!(close(
            Nuclide::Cs137.decay(1.0, 10.0 * YEAR),
            0.794_19,
            1e-4
        ));
        // Back in time doubles.
        assert!(close(Nuclide::F18.decay(10.0, -109.77 * 60.0), 20.0, 1e-12));
    }

    #[test]
    fn names() {
        assert_eq!(Nuclide::parse("Tc(99m)"), Some(Nuclide::Tc99m));
        assert_eq!(Nuclide::parse("Tc-99m"), Some(Nuclide::Tc99m));
        assert_eq!(Nuclide::parse("Ra(233)"), Some(Nuclide::Ra223));
        assert_eq!(Nuclide::parse("Co-57"), Some(Nuclide::Co57));
        assert_eq!(Nuclide::parse("Tc99m"), None);
        for r in Radioisotope::ALL {
            assert!(Nuclide::from(*r).half_life_seconds() > 0.0);
        }
        assert_eq!(
            serde_json::to_string(&Nuclide::Cs137).unwrap(),
            "\"Cs-137\""
        );
    }

    proptest! {
        #[test]
        fn decay_of_a_decay_is_the_decay_of_the_sum(a0 in 0.001f64..1e6, t1 in 0f64..1e6, t2 in 0f64..1e6, i in 0usize..18) {
            let n = Nuclide::ALL[i];
            let two_steps = n.decay(n.decay(a0, t1), t2);
            let one_step = n.decay(a0, t1 + t2);
            prop_assert!(((two_steps - one_step) / one_step.max(f64::MIN_POSITIVE)).abs() < 1e-9 || one_step < 1e-300);
        }

        #[test]
        fn mci_mbq_round_trip(x in 1e-6f64..1e9) {
            prop_assert!(((mbq_to_mci(mci_to_mbq(x)) - x) / x).abs() < 1e-12);
        }
    }
}
