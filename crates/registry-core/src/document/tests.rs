use super::*;
use DocumentStatus::*;

#[test]
fn exact_values_and_slugs_round_trip() {
    let expected = [
        (InProgress, "Em andamento", "em-andamento"),
        (ToCorrect, "Corrigir", "corrigir"),
        (AwaitingSignature, "Falta assinar", "falta-assinar"),
        (Signed, "Assinado", "assinado"),
        (Released, "Liberado", "liberado"),
    ];
    for (status, value, slug) in expected {
        assert_eq!(status.as_str(), value);
        assert_eq!(status.slug(), slug);
        assert_eq!(DocumentStatus::parse(value), Some(status));
        assert_eq!(DocumentStatus::parse_value_or_slug(slug), Some(status));
        assert_eq!(
            serde_json::to_value(status).unwrap(),
            serde_json::json!(value)
        );
    }
    assert_eq!(DocumentStatus::parse("liberado"), None);
    assert_eq!(DocumentStatus::parse_value_or_slug("Released"), None);
    // The lists' filter reads any case and accents.
    for loose in ["falta assinar", "FALTA-ASSINAR", " Falta Assinar "] {
        assert_eq!(
            DocumentStatus::parse_loosely(loose),
            Some(DocumentStatus::AwaitingSignature),
            "{loose}"
        );
    }
    assert_eq!(DocumentStatus::parse_value_or_slug("falta assinar"), None);
    assert_eq!(DocumentStatus::parse_loosely("Released"), None);
}

#[test]
fn every_allowed_move_and_every_refused_one() {
    let moves = [Move::Submit, Move::SendBack, Move::Sign, Move::Liberate];
    let allowed = [
        (InProgress, Move::Submit, AwaitingSignature),
        (ToCorrect, Move::Submit, AwaitingSignature),
        (AwaitingSignature, Move::SendBack, ToCorrect),
        (AwaitingSignature, Move::Sign, Signed),
        (Signed, Move::Liberate, Released),
    ];
    for from in DocumentStatus::ALL.iter().copied() {
        for m in moves {
            let expected = allowed
                .iter()
                .find(|(f, mv, _)| *f == from && *mv == m)
                .map(|(_, _, to)| *to);
            match expected {
                Some(to) => assert_eq!(transition(from, m), Ok(to), "{from} {m:?}"),
                None => assert_eq!(
                    transition(from, m),
                    Err(InvalidTransition {
                        from,
                        to: m.target()
                    }),
                    "{from} {m:?}"
                ),
            }
        }
    }
    assert_eq!(Move::towards(InProgress), None);
    assert!(Signed.is_frozen() && Released.is_frozen() && !AwaitingSignature.is_frozen());
    // A refusal says which move and what it needs, not a move from a status to itself.
    assert_eq!(
        transition(Signed, Move::Sign).unwrap_err().to_string(),
        "a document in \"Assinado\" cannot be signed: only one in \"Falta assinar\" can"
    );
    assert_eq!(
        transition(AwaitingSignature, Move::Liberate)
            .unwrap_err()
            .to_string(),
        "a document in \"Falta assinar\" cannot be released: only one in \"Assinado\" can"
    );
}

#[test]
fn authenticity_codes_use_the_unambiguous_alphabet() {
    for ambiguous in b"0O1IL" {
        assert!(!CODE_ALPHABET.contains(ambiguous));
    }
    let code = authenticity_code([0, 30, 31, 255, 100, 7, 8, 200]);
    assert_eq!(code.len(), 8);
    assert!(is_authenticity_code(&code), "{code}");
    assert!(!is_authenticity_code("ABCDEFG0"));
    assert!(!is_authenticity_code("ABCDEFG"));
}

fn signed_document(key: &SigningKey, file: &[u8]) -> Document {
    let person = Person {
        id: "user-1".into(),
        name: "Física".into(),
    };
    let mut doc = Document {
        id: "doc-1".into(),
        name: "Relatório".into(),
        facility: RecordRef {
            id: "fac-1".into(),
            name: Some("Clínica".into()),
        },
        equipment: None,
        test: None,
        date: "2026-11-01".into(),
        validity: "2027-11-01".into(),
        conclusion: None,
        status: Signed,
        file: FileInfo {
            name: "r.pdf".into(),
            content_type: "application/pdf".into(),
            size: file.len() as i64,
            sha256: sha256_hex(file),
        },
        uploaded_by: person.clone(),
        uploaded_at: "2026-11-01T10:00:00.000000Z".into(),
        signed_by: Some(person),
        signed_at: Some("2026-11-02T10:00:00.000000Z".into()),
        code: Some("ABCD2345".into()),
        signature: None,
        liberated_by: None,
        liberated_at: None,
        comments: vec![],
        scheduled_email: None,
        sent_email: None,
        versions: vec![],
        created_at: "2026-11-01T10:00:00.000000Z".into(),
        updated_at: "2026-11-02T10:00:00.000000Z".into(),
    };
    let claim = SignedClaim {
        file_sha256: &doc.file.sha256,
        document_id: &doc.id,
        signer: "user-1",
        signed_at: doc.signed_at.as_deref().unwrap(),
        code: "ABCD2345",
    };
    doc.signature = Some(claim.sign(key));
    doc
}

#[test]
fn a_signature_verifies_and_tampering_is_caught() {
    let key = SigningKey::from_bytes(&[7u8; 32]);
    let public = key.verifying_key();
    let file = b"%PDF-1.7 report".to_vec();
    let doc = signed_document(&key, &file);
    assert_eq!(verify_document(&file, &doc, &public), Ok(()));

    let mut tampered = file.clone();
    tampered[5] ^= 1;
    assert!(matches!(
        verify_document(&tampered, &doc, &public),
        Err(VerifyError::FileMismatch { .. })
    ));

    for change in [
        |d: &mut Document| d.id = "doc-2".into(),
        |d: &mut Document| d.signed_at = Some("2026-11-03T10:00:00.000000Z".into()),
        |d: &mut Document| d.signed_by.as_mut().unwrap().id = "user-2".into(),
        |d: &mut Document| d.code = Some("ZZZZ2345".into()),
    ] {
        let mut other = doc.clone();
        change(&mut other);
        assert_eq!(
            verify_document(&file, &other, &public),
            Err(VerifyError::BadSignature)
        );
    }

    let stranger = SigningKey::from_bytes(&[8u8; 32]).verifying_key();
    assert_eq!(
        verify_document(&file, &doc, &stranger),
        Err(VerifyError::BadSignature)
    );
    let mut unsigned = doc.clone();
    unsigned.signature = None;
    assert_eq!(
        verify_document(&file, &unsigned, &public),
        Err(VerifyError::NotSigned)
    );
    let encoded = BASE64.encode(public.to_bytes());
    assert_eq!(public_key_from_base64(&encoded), Ok(public));
    assert_eq!(public_key_from_base64("abc"), Err(VerifyError::BadKey));
}

#[test]
fn an_upload_needs_name_facility_date_and_a_later_validity() {
    let obj = |v: serde_json::Value| v.as_object().unwrap().clone();
    let errs = read_document(&obj(serde_json::json!({})), true).unwrap_err();
    let fields: Vec<_> = errs.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["name", "facility", "date", "validity"]);
    let errs = read_document(
        &obj(serde_json::json!({"name": "R", "facility": "f", "date": "2026-11-01", "validity": "2026-10-01"})),
        true,
    )
    .unwrap_err();
    assert_eq!(errs[0].field, "validity");
    let ok = read_document(
        &obj(serde_json::json!({"name": "R", "facility": {"_id": "f"}, "date": "2026-11-01T12:00:00Z",
            "validity": "2027-11-01", "draft": "true", "equipment": "", "status": "assinado"})),
        true,
    )
    .unwrap();
    assert_eq!(ok.date.as_deref(), Some("2026-11-01"));
    assert_eq!(ok.facility.as_deref(), Some("f"));
    assert_eq!(ok.equipment, Some(None));
    assert!(ok.draft);
    assert_eq!(ok.status, None, "status is read on edits only");
    let edit = read_document(&obj(serde_json::json!({"status": "falta-assinar"})), false).unwrap();
    assert_eq!(edit.status, Some(AwaitingSignature));
    let bad = read_document(
        &obj(serde_json::json!({"status": "Done", "date": "01/11/2026"})),
        false,
    )
    .unwrap_err();
    assert_eq!(bad.len(), 2);
    let date = bad.iter().find(|e| e.field == "date").unwrap();
    assert!(date.message.contains("RFC 3339"), "{}", date.message);
    // A year before 1900 is a slip, as in every other day of the registry.
    let slip = read_document(
        &obj(serde_json::json!({"date": "0206-11-20", "validity": "1899-12-31"})),
        false,
    )
    .unwrap_err();
    let said: Vec<_> = slip
        .iter()
        .map(|e| (e.field.as_str(), e.message.as_str()))
        .collect();
    assert_eq!(
        said,
        [
            ("date", "must be in the year 1900 or later"),
            ("validity", "must be in the year 1900 or later")
        ]
    );
    assert!(read_document(&obj(serde_json::json!({"date": "1900-01-01"})), false).is_ok());
}

#[test]
fn document_dates_are_read_as_every_registry_date() {
    assert_eq!(parse_date(" 2026-11-01 ").as_deref(), Some("2026-11-01"));
    assert_eq!(
        parse_date("2026-11-01T23:30:00-03:00").as_deref(),
        Some("2026-11-01")
    );
    // A time is taken as its day in Brasília.
    assert_eq!(
        parse_date("2026-11-02T01:30:00Z").as_deref(),
        Some("2026-11-01")
    );
    assert_eq!(parse_date("2026-11-1"), None);
    assert_eq!(parse_date("01/11/2026"), None);
}

#[test]
fn a_file_link_holds_for_its_document_version_and_time_only() {
    let key = SigningKey::from_bytes(&[7u8; 32]);
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-27T12:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    let expires = now.timestamp() + LINK_DAYS * 86_400;
    let link = FileLink {
        id: "doc-1",
        version: 2,
        expires,
    };
    let query = link.query(&key);
    let signature = query.rsplit("signature=").next().unwrap();
    assert!(query.starts_with(&format!("version=2&expires={expires}&signature=")));
    let public = key.verifying_key();
    assert!(link.holds(signature, &public, now));
    // Another document, version or time, or another key, or a changed signature: refused.
    for other in [
        FileLink {
            id: "doc-2",
            ..link.clone()
        },
        FileLink {
            version: 1,
            ..link.clone()
        },
        FileLink {
            expires: expires + 1,
            ..link.clone()
        },
    ] {
        assert!(!other.holds(signature, &public, now), "{other:?}");
    }
    let stranger = SigningKey::from_bytes(&[8u8; 32]).verifying_key();
    assert!(!link.holds(signature, &stranger, now));
    let mut changed: Vec<char> = signature.chars().collect();
    changed[0] = if changed[0] == 'A' { 'B' } else { 'A' };
    assert!(!link.holds(&changed.into_iter().collect::<String>(), &public, now));
    assert!(!link.holds("not base64!", &public, now));
    // Expired at its second.
    let at_expiry = chrono::DateTime::from_timestamp(expires, 0).unwrap();
    assert!(!link.holds(signature, &public, at_expiry));
}

#[test]
fn an_uploaded_file_keeps_its_last_name_composed_and_bounded() {
    assert_eq!(
        file_name("C:\\laudos\\Relatório.pdf").unwrap(),
        "Relatório.pdf"
    );
    assert_eq!(file_name("../../etc/passwd.pdf").unwrap(), "passwd.pdf");
    assert_eq!(
        file_name(" rela\u{301}torio.pdf\u{200b}").unwrap(),
        "relátorio.pdf"
    );
    for bad in ["a\u{85}b.pdf", "a\u{2028}b.pdf", "x\u{202e}fdp.exe"] {
        assert!(file_name(bad).is_err(), "{bad:?}");
    }
    for blank in ["", "  ", "\u{200b}", "dir/", ".", "..", "x.pdf/.."] {
        assert_eq!(file_name(blank).unwrap(), "document", "{blank:?}");
    }
    assert_eq!(
        file_name(&format!("{}.pdf", "a".repeat(196)))
            .unwrap()
            .len(),
        200
    );
    let refused = file_name(&format!("{}.pdf", "a".repeat(197))).unwrap_err();
    assert!(refused.contains("at most 200"), "{refused}");
}

#[test]
fn a_downloads_ascii_name_is_as_near_the_name_as_ascii_comes() {
    for (name, ascii) in [
        ("Relatório de proteção.pdf", "Relatorio de protecao.pdf"),
        ("ção.pdf", "cao.pdf"),
        ("ﬁle.pdf", "file.pdf"),
        ("naïve résumé.pdf", "naive resume.pdf"),
        ("日本語.pdf", "document.pdf"),
        ("say \"hi\".pdf", "say _hi_.pdf"),
        ("plain.pdf", "plain.pdf"),
        ("日本語", "document"),
    ] {
        assert_eq!(ascii_file_name(name), ascii, "{name}");
    }
}
