//! `registry facility import`: a dry run, a summary, a failures file, and a second run that
//! creates nothing.

use crate::harness::{Env, cnpj};
use registry_client::ListQuery;

#[tokio::test(flavor = "multi_thread")]
async fn importing_a_csv_twice_creates_nothing_the_second_time() {
    let env = Env::logged_in().await;
    let mut csv = String::from(
        "name,companyName,cnpj,telephone,department,street,city,state,practices,radioisotopes\n",
    );
    for n in 0..12 {
        csv.push_str(&format!(
            "Import {n},Import Ltda,{},(11) 3333-4444,Medicina Nuclear,Rua {n},São Paulo,SP,Diagnóstico;Terapia Ambulatorial,Tc(99m)=1500;I(131)=200.5\n",
            cnpj(500 + n)
        ));
    }
    // Two bad rows: a comma decimal, and a wrong department.
    csv.push_str(&format!(
        "Bad Quantity,X,{},(11) 3333-4444,Medicina Nuclear,R,C,SP,,\"Tc(99m)=1,5\"\n",
        cnpj(600)
    ));
    csv.push_str(&format!(
        "Bad Department,X,{},(11) 3333-4444,Cardiologia,R,C,SP,,\n",
        cnpj(601)
    ));
    let path = env.write("facilities.csv", &csv);

    let dry = env
        .run(&["facility", "import", &path, "--dry-run", "-o", "json"])
        .await
        .expect(1)
        .json();
    assert_eq!(dry["created"], 12);
    assert_eq!(dry["failed"], 2);
    assert_eq!(env.facility_count().await, 0, "a dry run registers nothing");

    let first = env
        .run(&["facility", "import", &path, "--concurrency", "4"])
        .await
        .expect(1);
    assert!(first.stdout.contains("    12 created"), "{}", first.stdout);
    assert!(first.stdout.contains("     2 failed"), "{}", first.stdout);
    assert!(
        first.stdout.contains("radioisotopes[0].quantity"),
        "{}",
        first.stdout
    );
    let failures = std::fs::read_to_string(format!("{path}.failures.csv")).unwrap();
    assert!(failures.starts_with("row,name,cnpj,reason"), "{failures}");
    assert!(
        failures.contains("Bad Department") && failures.contains("department must be one of"),
        "{failures}"
    );
    assert_eq!(failures.lines().count(), 3);

    let second = env
        .run(&["facility", "import", &path, "-o", "json"])
        .await
        .expect(1)
        .json();
    assert_eq!(second["created"], 0);
    assert_eq!(second["alreadyRegistered"], 12);
    assert_eq!(env.facility_count().await, 12);
    let f = &env
        .admin
        .facilities(&ListQuery::default().filter("q", "Import 3"))
        .await
        .unwrap()
        .list[0];
    assert_eq!(f.practices.len(), 2);
    assert_eq!(f.radioisotopes[1].quantity, 200.5);

    // A clean file imports with exit 0; JSON input works too.
    let json = serde_json::json!([{
        "name": "Json One", "companyName": "J", "cnpj": cnpj(700), "telephone": "(11) 3333-4444",
        "department": "Radiodiagnóstico", "address": [{"street": "R", "city": "C", "state": "SP"}]
    }]);
    let path = env.write("facilities.json", &json.to_string());
    env.run(&["facility", "import", &path]).await.expect(0);
}
