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
    for path in [
        "README.md",
        "protocol.md",
        "RULES.md",
        "tools/multiseat-study.md",
    ] {
        let text = read(path);
        assert!(!text.contains("../shared"), "{path} names ../shared");
    }
}
