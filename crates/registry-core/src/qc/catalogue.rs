//! The QC test catalogue seeded on a fresh database: the seeded equipment types' fixed ids and
//! the test types on them (periods and tolerances: docs/qc.md).

use super::{Quantity, TestKind, Tolerances};

/// The seeded equipment types the catalogue's tests belong to (fixed ids, migration 0002).
pub const DOSE_CALIBRATOR: &str = "00000000-0000-7000-8000-000000000001";
pub const GAMMA_CAMERA: &str = "00000000-0000-7000-8000-000000000002";
pub const GEIGER_COUNTER: &str = "00000000-0000-7000-8000-000000000003";

/// One test type of the seeded catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogueEntry {
    /// Fixed, so every installation agrees.
    pub id: &'static str,
    pub name: &'static str,
    pub equipment_type_id: &'static str,
    pub expiration_in_days: i64,
    pub kind: TestKind,
    pub tolerances: Tolerances,
    pub description: &'static str,
}

fn quantity(name: &str, label: &str, unit: &str, warn: f64, limit: f64) -> Quantity {
    Quantity {
        name: name.into(),
        label: label.into(),
        unit: unit.into(),
        warn: Some(warn),
        limit,
        minimum: None,
    }
}

/// A uniformity: a percentage `(max − min) / (max + min) × 100`, never below 0.
fn uniformity(name: &str, label: &str, warn: f64, limit: f64) -> Quantity {
    Quantity {
        minimum: Some(0.0),
        ..quantity(name, label, "%", warn, limit)
    }
}

/// The QC test catalogue seeded on a fresh database (periods and tolerances: docs/qc.md).
pub fn catalogue() -> Vec<CatalogueEntry> {
    let percent = |kind: TestKind| kind.default_tolerances().expect("percentage kind");
    let entry = |id, name, equipment_type_id, days, kind, tolerances, description| CatalogueEntry {
        id,
        name,
        equipment_type_id,
        expiration_in_days: days,
        kind,
        tolerances,
        description,
    };
    vec![
        entry(
            "00000000-0000-7000-8001-000000000001",
            "Constância",
            DOSE_CALIBRATOR,
            1,
            TestKind::Constancy,
            percent(TestKind::Constancy),
            "Leitura diária da fonte de referência contra a atividade esperada (±5 %)",
        ),
        entry(
            "00000000-0000-7000-8001-000000000002",
            "Exatidão",
            DOSE_CALIBRATOR,
            180,
            TestKind::Accuracy,
            percent(TestKind::Accuracy),
            "Média das leituras de cada fonte de referência contra o certificado decaído (≤ 10 %)",
        ),
        entry(
            "00000000-0000-7000-8001-000000000003",
            "Precisão",
            DOSE_CALIBRATOR,
            180,
            TestKind::Precision,
            percent(TestKind::Precision),
            "Maior desvio de uma leitura em relação à média (≤ 5 %)",
        ),
        entry(
            "00000000-0000-7000-8001-000000000004",
            "Linearidade",
            DOSE_CALIBRATOR,
            180,
            TestKind::Linearity,
            percent(TestKind::Linearity),
            "Fonte em decaimento lida ao longo do tempo contra o ajuste exponencial (≤ 10 %)",
        ),
        entry(
            "00000000-0000-7000-8001-000000000005",
            "Geometria",
            DOSE_CALIBRATOR,
            365,
            TestKind::Geometry,
            percent(TestKind::Geometry),
            "Cada volume ou recipiente contra o de referência (> 10 % reprova; 5–10 % fator de correção)",
        ),
        entry(
            "00000000-0000-7000-8001-000000000006",
            "Reprodutibilidade",
            GEIGER_COUNTER,
            30,
            TestKind::Reproducibility,
            percent(TestKind::Reproducibility),
            "Média das leituras da fonte de verificação contra a leitura de referência (≤ 10 %; 10–20 % com observações)",
        ),
        entry(
            "00000000-0000-7000-8001-000000000007",
            "Uniformidade intrínseca",
            GAMMA_CAMERA,
            30,
            TestKind::Recorded,
            Tolerances {
                quantities: vec![
                    uniformity("integralUfov", "Uniformidade integral (UFOV)", 4.0, 5.0),
                    uniformity(
                        "differentialUfov",
                        "Uniformidade diferencial (UFOV)",
                        3.0,
                        4.0,
                    ),
                ],
                ..Tolerances::default()
            },
            "Uniformidade integral e diferencial no UFOV, dos valores da análise do equipamento",
        ),
        entry(
            "00000000-0000-7000-8001-000000000008",
            "Centro de rotação",
            GAMMA_CAMERA,
            30,
            TestKind::Recorded,
            Tolerances {
                quantities: vec![quantity(
                    "offsetPixels",
                    "Desvio do centro de rotação",
                    "pixel",
                    0.5,
                    1.0,
                )],
                ..Tolerances::default()
            },
            "Desvio do centro de rotação (matriz 64×64), do valor da análise do equipamento",
        ),
    ]
}
