//! Bulk seeding of a database for benchmarks: facilities (with a linked `Cliente`, radioisotopes
//! and practices), staff users, QC test types, equipment and QC test records, written through the
//! storage layer in a few transactions with batched multi-row inserts. Seeding writes no audit
//! events: it is a load, not a series of requests.

use anyhow::Context;
use chrono::{Days, NaiveDate};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use registry_core::api::User;
use registry_core::equipment::local_date;
use registry_core::equipment::{Reference, TestType};
use registry_core::facility::{Address, FacilityFields, RadioisotopeGrant, UserLink};
use registry_core::values::WeeklyQuantity;
use registry_core::{Department, MainRole, Practice, Radioisotope, Responsibility, Role};
use registry_server::auth::hash_password;
use registry_server::db::{Conn, Db, new_id, now};
use registry_server::store::equipment_types;
use registry_server::store::facilities::{self, FacilityRecord, Param, insert_rows};
use registry_server::store::users::{self, UserRow};

/// What to create.
#[derive(Debug, Clone, Copy)]
pub struct SeedPlan {
    pub facilities: usize,
    pub equipment: usize,
    pub qc_tests: usize,
    /// Staff (`Físico`) users who perform the QC tests.
    pub physicists: usize,
    /// Seeds the random choices, so two runs with one plan give the same shape of data.
    pub rng_seed: u64,
}

/// The ids of what was created, for the benchmark to aim its requests at.
#[derive(Debug, Clone, Default)]
pub struct Seeded {
    pub facility_ids: Vec<String>,
    /// The `Cliente` linked (as Titular) to each facility, in the same order.
    pub client_ids: Vec<String>,
    pub physicist_ids: Vec<String>,
    pub equipment_ids: Vec<String>,
    pub test_type_ids: Vec<String>,
}

/// Every seeded user's password.
pub const SEED_PASSWORD: &str = "seeded-password-1";

/// Rows per multi-row `INSERT`, well under SQLite's and PostgreSQL's bound-parameter limits.
const BATCH_ROWS: usize = 1000;

/// Test types per seeded equipment type, with their periods in days (product.md §4, domain.md).
const TEST_TYPES: &[(&str, &[(&str, i64)])] = &[
    (
        "00000000-0000-7000-8000-000000000001",
        &[
            ("Constância", 1),
            ("Exatidão", 365),
            ("Precisão", 365),
            ("Linearidade", 90),
            ("Geometria", 365),
        ],
    ),
    (
        "00000000-0000-7000-8000-000000000002",
        &[
            ("Uniformidade", 7),
            ("Resolução espacial", 180),
            ("Centro de rotação", 30),
            ("Resolução energética", 180),
        ],
    ),
    (
        "00000000-0000-7000-8000-000000000003",
        &[("Teste de fonte", 7), ("Calibração", 365)],
    ),
    (
        "00000000-0000-7000-8000-000000000004",
        &[
            ("Normalização", 90),
            ("Uniformidade", 1),
            ("Sensibilidade", 180),
        ],
    ),
    (
        "00000000-0000-7000-8000-000000000005",
        &[
            ("Kerma", 365),
            ("Camada semirredutora", 365),
            ("Colimação", 180),
        ],
    ),
    (
        "00000000-0000-7000-8000-000000000006",
        &[
            ("Número CT", 30),
            ("Ruído", 30),
            ("Espessura de corte", 365),
        ],
    ),
    (
        "00000000-0000-7000-8000-000000000007",
        &[
            ("Dose glandular", 365),
            ("Imagem de simulador", 7),
            ("CAE", 30),
        ],
    ),
];

pub const CITIES: &[(&str, &str)] = &[
    ("São Paulo", "SP"),
    ("Rio de Janeiro", "RJ"),
    ("Belo Horizonte", "MG"),
    ("Recife", "PE"),
    ("Porto Alegre", "RS"),
    ("Curitiba", "PR"),
    ("Salvador", "BA"),
    ("Fortaleza", "CE"),
];

fn cnpj(n: usize) -> String {
    // 12-digit bases from a fixed offset can never be all-identical.
    let base = format!("{:012}", 100_000_000_000u64 + n as u64);
    let bytes: [u8; 12] = base.as_bytes().try_into().expect("12 digits");
    let [d1, d2] = registry_core::cnpj::check_digits(&bytes);
    format!("{base}{d1}{d2}")
}

/// An active account with one role.
pub fn user(name: String, email: String, role: Role, password_hash: &str) -> UserRow {
    let at = now();
    UserRow {
        profile: User {
            id: new_id(),
            name,
            email,
            telephone: None,
            cpf: None,
            roles: vec![role],
            active: true,
            licences: Default::default(),
            created_at: at.clone(),
            updated_at: at,
        },
        password_hash: password_hash.to_owned(),
        token_version: 0,
    }
}

/// The test types of each seeded equipment type, created when missing (fixed ids, so repeated
/// seeds of one database share them): `(equipment type, ids)`.
async fn test_types(conn: &mut Conn) -> anyhow::Result<Vec<(String, Vec<String>)>> {
    let mut out = Vec::new();
    for (t, (equipment_type, tests)) in TEST_TYPES.iter().enumerate() {
        let mut ids = Vec::new();
        for (n, (name, days)) in tests.iter().enumerate() {
            let id = format!("00000000-0000-7000-9000-{:06}{n:06}", t);
            if equipment_types::get_test_type(conn, &id).await?.is_none() {
                let at = now();
                let test_type = TestType {
                    id: id.clone(),
                    name: (*name).to_owned(),
                    type_of_equipment: Reference {
                        id: (*equipment_type).to_owned(),
                        name: String::new(),
                    },
                    expiration_in_days: *days,
                    description: None,
                    kind: None,
                    tolerances: None,
                    created_at: at.clone(),
                    updated_at: at,
                };
                equipment_types::save_test_type(conn, &test_type, true).await?;
            }
            ids.push(id);
        }
        out.push(((*equipment_type).to_owned(), ids));
    }
    Ok(out)
}

async fn insert_batched(
    db: &Db,
    table: &str,
    columns: &[&str],
    rows: Vec<Vec<Param>>,
) -> anyhow::Result<()> {
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        // One transaction per 20 batches keeps the SQLite writer from holding the lock for the
        // whole load while still avoiding a commit per statement.
        let mut tx = db.begin().await?;
        for _ in 0..20 {
            let batch: Vec<Vec<Param>> = rows.by_ref().take(BATCH_ROWS).collect();
            if batch.is_empty() {
                break;
            }
            insert_rows(&mut tx, table, columns, batch)
                .await
                .with_context(|| format!("seeding {table}"))?;
        }
        tx.commit().await?;
    }
    Ok(())
}

/// The `i`th seeded facility, with `client_id` as its Titular.
fn facility(i: usize, client_id: &str) -> FacilityRecord {
    let (city, state) = CITIES[i % CITIES.len()];
    let at = now();
    FacilityRecord {
        id: new_id(),
        fields: FacilityFields {
            name: format!("Clínica {i}"),
            company_name: format!("Clínica {i} Serviços Médicos Ltda"),
            cnpj: cnpj(i),
            telephone: "(11) 3456-7890".into(),
            department: if i.is_multiple_of(3) {
                Department::Radiodiagnosis
            } else {
                Department::NuclearMedicine
            },
            group_id: None,
            cnen_registry: Some(format!("CNEN-{i}")),
            address: vec![Address {
                street: format!("Rua {i}, 100"),
                city: city.into(),
                state: state.into(),
                complement: None,
                zip_code: None,
            }],
            users: vec![UserLink {
                user_id: client_id.to_owned(),
                responsibilities: vec![Responsibility::Main(MainRole::Titular)],
            }],
            radioisotopes: vec![RadioisotopeGrant {
                name: Radioisotope::Tc99m,
                quantity: WeeklyQuantity::new(1000.0 + i as f64).expect("positive"),
            }],
            practices: [Practice::Diagnosis].into(),
        },
        version: 1,
        created_at: at.clone(),
        updated_at: at,
    }
}

/// Seeds `plan` into `db`, a fresh migrated database (the generated cnpjs repeat between runs). Dates of QC tests fall in the two years before
/// today, so every due state occurs.
pub async fn seed(db: &Db, plan: &SeedPlan) -> anyhow::Result<Seeded> {
    let mut rng = StdRng::seed_from_u64(plan.rng_seed);
    let password_hash = hash_password(SEED_PASSWORD.to_owned())
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut seeded = Seeded::default();
    let run = &new_id()[24..];
    // The `i`th seeded user of `role`, named `{name} {i}`, with the e-mail `{mailbox}{i}-…`.
    let numbered_user = |name: &str, mailbox: &str, i: usize, role: Role| {
        user(
            format!("{name} {i}"),
            format!("{mailbox}{i}-{run}@seed.example"),
            role,
            &password_hash,
        )
    };

    let mut tx = db.begin().await?;
    for i in 0..plan.physicists.max(1) {
        let u = numbered_user("Físico", "fisico", i, Role::Physicist);
        users::save(&mut tx, &u, true).await?;
        seeded.physicist_ids.push(u.profile.id);
    }
    let types = test_types(&mut tx).await?;
    tx.commit().await?;
    for first in (0..plan.facilities).step_by(BATCH_ROWS) {
        let chunk = first..plan.facilities.min(first + BATCH_ROWS);
        let mut tx = db.begin().await?;
        let mut records = Vec::with_capacity(chunk.len());
        for i in chunk {
            let client = numbered_user("Cliente", "cliente", i, Role::Client);
            users::save(&mut tx, &client, true).await?;
            records.push((facility(i, &client.profile.id), client.profile.id));
        }
        // Ranks follow ids: the facilities go in in id order.
        records.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        let (records, clients): (Vec<FacilityRecord>, Vec<String>) = records.into_iter().unzip();
        facilities::insert_many(&mut tx, &records).await?;
        tx.commit().await?;
        seeded
            .facility_ids
            .extend(records.into_iter().map(|r| r.id));
        seeded.client_ids.extend(clients);
    }
    seeded.test_type_ids = types.iter().flat_map(|(_, ids)| ids.clone()).collect();
    anyhow::ensure!(
        !seeded.facility_ids.is_empty() || plan.equipment == 0,
        "equipment needs at least one facility"
    );

    let at = now();
    let mut equipment = Vec::with_capacity(plan.equipment);
    let mut equipment_rows = Vec::with_capacity(plan.equipment);
    for i in 0..plan.equipment {
        let id = new_id();
        let facility = &seeded.facility_ids[i % seeded.facility_ids.len()];
        let kind = rng.random_range(0..types.len());
        equipment_rows.push(vec![
            Param::Text(Some(id.clone())),
            Param::Text(Some(facility.clone())),
            Param::Text(Some(types[kind].0.clone())),
            Param::Text(Some("Fabricante".into())),
            Param::Text(Some(format!("Modelo {}", i % 17))),
            Param::Text(Some(format!("SN-{i:06}"))),
            Param::Json("{}".into()),
            Param::Bool(true),
            Param::Ts(at.clone()),
            Param::Ts(at.clone()),
        ]);
        equipment.push((id.clone(), facility.clone(), kind));
        seeded.equipment_ids.push(id);
    }
    insert_batched(
        db,
        "equipment",
        &[
            "id",
            "facility_id",
            "equipment_type_id",
            "manufacturer",
            "model",
            "serial_number",
            "attributes",
            "active",
            "created_at",
            "updated_at",
        ],
        equipment_rows,
    )
    .await?;

    let today: NaiveDate = local_date(chrono::Utc::now());
    let mut test_rows = Vec::with_capacity(plan.qc_tests);
    let tests_to_seed = if equipment.is_empty() {
        0
    } else {
        plan.qc_tests
    };
    for _ in 0..tests_to_seed {
        let (equipment_id, facility_id, kind) = &equipment[rng.random_range(0..equipment.len())];
        let tests = &types[*kind].1;
        let date = today - Days::new(rng.random_range(0..730));
        test_rows.push(vec![
            Param::Text(Some(new_id())),
            Param::Text(Some(equipment_id.clone())),
            Param::Text(Some(tests[rng.random_range(0..tests.len())].clone())),
            Param::Text(Some(facility_id.clone())),
            Param::Day(date.to_string()),
            Param::Text(Some(
                seeded.physicist_ids[rng.random_range(0..seeded.physicist_ids.len())].clone(),
            )),
            Param::Text(Some("Satisfatório".into())),
            Param::Ts(at.clone()),
            Param::Ts(at.clone()),
        ]);
    }
    insert_batched(
        db,
        "qc_tests",
        &[
            "id",
            "equipment_id",
            "test_type_id",
            "facility_id",
            "date",
            "performed_by",
            "conclusion",
            "created_at",
            "updated_at",
        ],
        test_rows,
    )
    .await?;
    // Fresh statistics, so the planner sees the loaded tables as they are (and on PostgreSQL a
    // visibility map, so the last-date lookups are index-only): autovacuum would do both, later.
    db.analyze().await?;
    // The bulk insert bypassed the store's bookkeeping of the latest test per pair.
    let mut tx = db.begin().await?;
    registry_server::store::qc_tests::refresh_last(&mut tx, None, None).await?;
    tx.commit().await?;
    Ok(seeded)
}
