//! The documents a clone carries: RULES.md gives every game's start
//! notation as the rules code writes it, and no document sends the reader
//! to a file outside the repository.

use menagerie_rules::catalogue::{new_session_named, GAMES};

fn read(path: &str) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    std::fs::read_to_string(format!("{root}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn rules_md_states_each_games_start_as_the_code_writes_it() {
    let rules = read("RULES.md");
    let rulesets: [(&str, &[&str]); 5] = [
        ("hat-diviyan-keliya", &[]),
        ("hat-diviyan-keliya", &["start=apex"]),
        ("awithlaknannai-mosona", &[]),
        ("safari-dual", &[]),
        ("kilkenny-cats", &[]),
    ];
    for (id, options) in rulesets {
        let session = new_session_named(&GAMES, id, options).unwrap();
        let start = format!("`{}`", session.notation());
        assert!(
            rules.contains(&start),
            "RULES.md lacks {id} {options:?}: {start}"
        );
        assert!(
            rules.contains(&format!("(`{id}`)")),
            "RULES.md has no section for {id}"
        );
    }
    assert_eq!(
        GAMES.iter().filter(|g| !g.id.contains("take")).count(),
        4,
        "a new game needs its section in RULES.md"
    );
}

#[test]
fn no_document_names_a_file_outside_the_repository() {
    let mut documents = crate::common::documents();
    documents.push("tools/multiseat-study.md".to_string());
    assert!(documents.len() >= 8, "{documents:?}");
    for path in &documents {
        let text = read(path);
        assert!(!text.contains("../shared"), "{path} names ../shared");
    }
}

#[test]
fn every_link_between_documents_leads_to_a_file() {
    let root = env!("CARGO_MANIFEST_DIR");
    for path in crate::common::documents() {
        let text = read(&path);
        let folder = std::path::Path::new(root)
            .join(&path)
            .parent()
            .expect("a document sits in a folder")
            .to_path_buf();
        for (start, _) in text.match_indices("](") {
            let rest = &text[start + 2..];
            let target = &rest[..rest.find(')').unwrap_or(rest.len())];
            let file = target.split('#').next().unwrap_or_default();
            if file.is_empty() || file.contains("://") {
                continue;
            }
            assert!(
                folder.join(file).exists(),
                "{path} links to {target}, which is not there"
            );
        }
    }
}
