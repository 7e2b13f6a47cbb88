//! The error table in code equals the error table of the behaviour spec
//! (`shared/spec/bridge-translation-rules.txt`, "Error table"): every
//! cause, its code and its exact message.

use mcp_bridge::jsonrpc::Cause;
use std::path::PathBuf;

fn spec_text() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec/bridge-translation-rules.txt");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the behaviour spec at {} cannot be read: {e}", path.display()))
}

/// The rows of the table: cause, code column, message.
fn spec_rows(text: &str) -> Vec<(String, String, String)> {
    let start = text.find("\nCause\tCode\tMessage\tWhen").expect("the spec has the error table");
    text[start + 1..]
        .lines()
        .skip(1)
        .take_while(|line| line.contains('\t'))
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            (cols[0].to_owned(), cols[1].to_owned(), cols[2].to_owned())
        })
        .collect()
}

#[test]
fn every_cause_of_the_spec_is_in_the_code_with_its_code_and_exact_message() {
    let text = spec_text();
    let rows = spec_rows(&text);
    assert_eq!(rows.len(), Cause::ALL.len(), "the spec and the code have the same number of causes");
    for (cause, code, message) in &rows {
        let ours = Cause::ALL
            .iter()
            .find(|c| c.name() == cause)
            .unwrap_or_else(|| panic!("the cause {cause} of the spec is missing in the code"));
        assert_eq!(ours.message(), message, "message of {cause}");
        match code.as_str() {
            "No response" => assert_eq!(cause, "canceled"),
            "The upstream code, else -32603" => assert_eq!(ours.code(), -32603, "{cause}"),
            number => assert_eq!(ours.code().to_string(), number, "code of {cause}"),
        }
    }
}

#[test]
fn the_causes_of_the_code_are_in_the_order_of_the_spec() {
    let names: Vec<String> = spec_rows(&spec_text()).into_iter().map(|(c, _, _)| c).collect();
    let ours: Vec<String> = Cause::ALL.iter().map(|c| c.name().to_owned()).collect();
    assert_eq!(ours, names);
}
