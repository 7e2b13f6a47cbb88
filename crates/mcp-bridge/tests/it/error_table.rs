//! The error table in code equals the error table of the behaviour spec
//! ("Error table" of `bridge-translation-rules.txt`): every cause, its
//! code and its exact message, in the order of the spec.
//!
//! The rows of the spec's table are kept in `tests/fixtures/error_table.tsv`
//! (the header and the rows, tab-separated, as the spec writes them), so the
//! repository tests on its own. When the spec is beside the clone
//! (`../shared/spec/`), the fixture must also equal its table, so that a
//! change of the spec cannot pass unseen.

use mcp_bridge::Cause;
use std::path::PathBuf;

const HEADER: &str = "Cause\tCode\tMessage\tWhen";

fn fixture_text() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/error_table.tsv");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The rows of a table that starts at its header line: cause, code
/// column, message.
fn rows(table: &str) -> Vec<(String, String, String)> {
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some(HEADER), "the table starts with its header");
    lines
        .take_while(|line| line.contains('\t'))
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 4, "a row has four columns: {line}");
            (cols[0].to_owned(), cols[1].to_owned(), cols[2].to_owned())
        })
        .collect()
}

#[test]
fn every_cause_of_the_spec_is_in_the_code_with_its_code_and_exact_message() {
    let rows = rows(&fixture_text());
    assert_eq!(rows.len(), Cause::ALL.len(), "the spec and the code have the same number of causes");
    for (cause, code, message) in &rows {
        let ours = Cause::ALL
            .iter()
            .find(|c| c.name() == cause)
            .unwrap_or_else(|| panic!("the cause {cause} of the spec is missing in the code"));
        assert_eq!(&ours.message(), message, "message of {cause}");
        match code.as_str() {
            "No response" => assert_eq!(cause, "canceled"),
            "The upstream code, else -32603" => assert_eq!(ours.code(), -32603, "{cause}"),
            number => assert_eq!(ours.code().to_string(), number, "code of {cause}"),
        }
    }
}

#[test]
fn the_causes_of_the_code_are_in_the_order_of_the_spec() {
    let names: Vec<String> = rows(&fixture_text()).into_iter().map(|(c, _, _)| c).collect();
    let ours: Vec<String> = Cause::ALL.iter().map(|c| c.name().to_owned()).collect();
    assert_eq!(ours, names);
}

/// Checks the fixture against the spec text when the spec is beside the
/// clone; a bare clone has only the fixture, and says so.
#[test]
fn the_fixture_is_the_error_table_of_the_spec_when_the_spec_is_beside_the_clone() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec/bridge-translation-rules.txt");
    let Ok(spec) = std::fs::read_to_string(&path) else {
        eprintln!("the behaviour spec is not beside this clone; the fixture stands for it");
        return;
    };
    let start = spec.find(&format!("\n{HEADER}\n")).expect("the spec has the error table") + 1;
    let table: Vec<&str> = spec[start..].lines().take_while(|line| line.contains('\t')).collect();
    let fixture = fixture_text();
    assert_eq!(fixture.lines().collect::<Vec<_>>(), table, "tests/fixtures/error_table.tsv differs from the spec");
}
