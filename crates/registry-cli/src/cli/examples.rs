//! Examples shown after the options in `--help` of the commands with the most to type (from
//! docs/cli.md and docs/qc.md).

pub const FACILITY_CREATE: &str = "\
Examples:
  registry facility create --name \"Clínica Boa Vista\" --company-name \"Boa Vista Ltda\" \\
    --cnpj 11.222.333/0001-81 --telephone \"(81) 3333-4444\" --department \"Medicina Nuclear\" \\
    --street \"Rua da Aurora, 100\" --city Recife --state PE \\
    --practice \"Diagnóstico\" --isotope \"Tc(99m)=1500\" --isotope \"I(131)=200.5\"
  registry facility create --from-file facility.json     # the API's field names; - reads stdin
  registry facility create                                # at a terminal: a wizard";

pub const TEST_RECORD: &str = "\
Examples:
  registry test record --equipment EQUIPMENT_ID --test-type Uniformidade \\
    --measurements '{\"values\": {\"integralUfov\": 3.2, \"differentialUfov\": 2.4}}'
  registry test record --equipment EQUIPMENT_ID --test-type Constância --readings constancia.csv
  registry test record                                    # at a terminal: picked and asked
The --measurements of each kind (constancy, accuracy, precision, linearity, geometry,
reproducibility, recorded): docs/qc.md.";

pub const DOCUMENT_VERIFY: &str = "\
Examples:
  registry document verify relatorio.pdf --document DOCUMENT_ID
  # Offline: the document's JSON and the server's public key, saved while online.
  registry document show DOCUMENT_ID -o json > documento.json
  registry document signing-key > signing-key.txt
  registry document verify relatorio.pdf --document-json documento.json \\
    --key \"$(cat signing-key.txt)\"";

pub const MATERIAL_RECEIVE: &str = "\
Examples:
  registry material receive --facility 11222333000181 --radioisotope \"Tc(99m)\" --activity 800 \\
    --supplier IPEN --lot TC-114
  registry material receive --facility 11222333000181 --radioisotope Tc-99m --activity-mbq 370 \\
    --supplier IPEN                                       # 370 MBq = 10 mCi";

pub const WASTE_STORE: &str = "\
Examples:
  registry waste store --facility 11222333000181 --form solid --content \"I(131)=1\" --mass 10 \\
    --location \"Abrigo A\"
  registry waste store --facility 11222333000181 --form liquid --content \"I(131)=2.5\" \\
    --content \"Tc(99m)=0.5\" --mass 2 --location \"Abrigo B\" --closed-at 2026-11-20";

#[cfg(test)]
mod tests {
    /// Help is wrapped at 100 columns without a terminal: a longer example line would be split
    /// where the shell reads it as two commands, so each is written in lines that fit.
    #[test]
    fn every_example_line_fits_the_help_width() {
        for examples in [
            super::FACILITY_CREATE,
            super::TEST_RECORD,
            super::DOCUMENT_VERIFY,
            super::MATERIAL_RECEIVE,
            super::WASTE_STORE,
        ] {
            for line in examples.lines() {
                assert!(line.chars().count() <= 100, "too wide for --help: {line}");
            }
        }
    }
}
