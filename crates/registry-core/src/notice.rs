//! Notices: what needs a facility's responsible people (QC tests falling due, licences and
//! documents running out, waste ready for release, weekly quantities exceeded), and the text of
//! the daily digest that tells them.

use crate::equipment::Reference;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What a notice is about.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// A QC test whose due date has passed.
    QcOverdue,
    /// A QC test due within the lead time.
    QcDueSoon,
    /// A user's AN or FM licence that ends within the lead time, or has ended.
    LicenceExpiring,
    /// A document whose validity ends within the lead time.
    DocumentExpiring,
    /// A waste package whose release date has come.
    WasteReleasable,
    /// A week whose receipts of an isotope went over the authorised quantity.
    QuantityExceeded,
}

impl NoticeKind {
    pub const ALL: &'static [NoticeKind] = &[
        NoticeKind::QcOverdue,
        NoticeKind::QcDueSoon,
        NoticeKind::LicenceExpiring,
        NoticeKind::DocumentExpiring,
        NoticeKind::WasteReleasable,
        NoticeKind::QuantityExceeded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::QcOverdue => "qc_overdue",
            NoticeKind::QcDueSoon => "qc_due_soon",
            NoticeKind::LicenceExpiring => "licence_expiring",
            NoticeKind::DocumentExpiring => "document_expiring",
            NoticeKind::WasteReleasable => "waste_releasable",
            NoticeKind::QuantityExceeded => "quantity_exceeded",
        }
    }

    pub fn parse(s: &str) -> Option<NoticeKind> {
        NoticeKind::ALL.iter().copied().find(|k| k.as_str() == s)
    }

    /// The heading of the kind in the digest (Portuguese, as the people reading it).
    pub fn heading(self) -> &'static str {
        match self {
            NoticeKind::QcOverdue => "Testes de controle de qualidade vencidos",
            NoticeKind::QcDueSoon => "Testes de controle de qualidade a vencer",
            NoticeKind::LicenceExpiring => "Licenças (AN, FM) a vencer ou vencidas",
            NoticeKind::DocumentExpiring => "Documentos a vencer",
            NoticeKind::WasteReleasable => "Rejeitos prontos para liberação",
            NoticeKind::QuantityExceeded => "Quantidades semanais excedidas",
        }
    }
}

/// One thing that needs attention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    pub kind: NoticeKind,
    pub facility: Reference,
    /// The equipment, for QC tests and documents about one.
    pub equipment: Option<Reference>,
    /// What it is: the test, the licence holder, the document, the package, the isotope.
    pub subject: String,
    /// The date that matters (`YYYY-MM-DD`): due, end of validity, release, Monday of the week.
    #[schema(format = Date)]
    pub date: String,
    /// The record to open: the equipment, user, document, package or facility `_id`.
    pub record: String,
}

/// The digest e-mail of one facility: a subject line and a plain-text body listing every notice
/// with its equipment and date, grouped by kind. `None` when there is nothing to say.
pub fn digest(facility: &str, day: &str, notices: &[Notice]) -> Option<(String, String)> {
    if notices.is_empty() {
        return None;
    }
    let subject = format!(
        "Registro de instalações — {facility}: {n} {item} para {day}",
        n = notices.len(),
        item = if notices.len() == 1 {
            "aviso"
        } else {
            "avisos"
        },
    );
    let mut body = format!(
        "Avisos de {day} para {facility}.\nVocê recebe este resumo por ser Titular, Responsável Técnico ou Supervisor da instalação.\n"
    );
    for kind in NoticeKind::ALL {
        let items: Vec<&Notice> = notices.iter().filter(|n| n.kind == *kind).collect();
        if items.is_empty() {
            continue;
        }
        body.push_str(&format!("\n{} ({}):\n", kind.heading(), items.len()));
        for n in items {
            let equipment = n
                .equipment
                .as_ref()
                .map(|e| format!(" — equipamento: {}", e.name))
                .unwrap_or_default();
            body.push_str(&format!(
                "  - {date}: {subject} — instalação: {facility}{equipment}\n",
                date = n.date,
                subject = n.subject,
                facility = n.facility.name,
            ));
        }
    }
    Some((subject, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(kind: NoticeKind, subject: &str, equipment: Option<&str>) -> Notice {
        Notice {
            kind,
            facility: Reference {
                id: "f1".into(),
                name: "Clínica A".into(),
            },
            equipment: equipment.map(|e| Reference {
                id: "e1".into(),
                name: e.into(),
            }),
            subject: subject.into(),
            date: "2026-03-10".into(),
            record: "x".into(),
        }
    }

    #[test]
    fn the_digest_lists_each_item_with_facility_equipment_and_date() {
        assert!(digest("Clínica A", "2026-03-02", &[]).is_none());
        let (subject, body) = digest(
            "Clínica A",
            "2026-03-02",
            &[
                notice(NoticeKind::WasteReleasable, "Pacote I(131)", None),
                notice(
                    NoticeKind::QcOverdue,
                    "Constância",
                    Some("Capintec CRC-25R"),
                ),
            ],
        )
        .unwrap();
        assert!(subject.contains("2 avisos"), "{subject}");
        let overdue = body.find("vencidos (1)").unwrap();
        let waste = body.find("liberação (1)").unwrap();
        assert!(overdue < waste, "kinds in a fixed order: {body}");
        assert!(body.contains(
            "  - 2026-03-10: Constância — instalação: Clínica A — equipamento: Capintec CRC-25R\n"
        ));
        assert!(body.contains("  - 2026-03-10: Pacote I(131) — instalação: Clínica A\n"));
    }

    #[test]
    fn kinds_round_trip() {
        for k in NoticeKind::ALL {
            assert_eq!(NoticeKind::parse(k.as_str()), Some(*k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
    }
}
