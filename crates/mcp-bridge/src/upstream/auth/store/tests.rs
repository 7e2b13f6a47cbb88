//! The store with the file vault; the credential store's half runs against
//! a real Secret Service in `secret_service`.

use super::*;
use crate::upstream::auth::record::Grant;
use crate::upstream::auth::vault::Secrets;
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::Instant;

fn temp_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    std::env::temp_dir().join(format!("mcp-bridge-store-{name}-{}-{nanos}", std::process::id()))
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

fn grant(access_token: &str) -> Grant {
    Grant {
        client_id: "c".into(),
        registration: "dynamic".into(),
        access_token: Some(access_token.into()),
        ..Grant::default()
    }
}

#[test]
fn a_record_survives_a_restart_in_a_private_file_named_by_a_digest() {
    let dir = temp_dir("roundtrip");
    let store = Store::open_at(&dir, Vault::File).unwrap_or_else(|e| panic!("{e}"));
    let resource = "https://mcp.example.com/mcp?key=SECRET";
    assert_eq!(store.load(resource), Record { resource: resource.into(), ..Record::default() });
    let mut record = store.load(resource);
    record.redirect_port = Some(41234);
    record.grants.insert("https://auth.example.com".into(), grant("AT"));
    assert_eq!(store.save(&mut record).map_err(|e| e.to_string()), Ok(()));
    assert_eq!(record.revision, 1, "the first save is revision 1");
    assert_eq!(Store::open_at(&dir, Vault::File).map(|s| s.load(resource)), Ok(record));
    assert_eq!(store.ports_in_use(), vec![41234]);
    let files = names(&dir);
    assert_eq!(files.len(), 1, "the record alone: no temporary file, no lock file: {files:?}");
    assert!(files[0].len() == 64 + 5 && !files[0].contains("example"), "{files:?}");
    let text = std::fs::read_to_string(dir.join(&files[0])).unwrap_or_default();
    assert!(!text.contains("mcp.example.com") && !text.contains("SECRET"), "the file names the server: {text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777).unwrap_or(0);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join(&files[0])), 0o600);
    }
    assert_eq!(store.forget_resource(resource).map_err(|e| e.to_string()), Ok(true));
    assert_eq!(store.forget_resource(resource).map_err(|e| e.to_string()), Ok(false));
    assert_eq!(names(&dir), Vec::<String>::new(), "logout leaves nothing of the server");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn each_save_under_the_lock_has_the_next_revision_and_a_locked_load_sees_it() {
    let dir = temp_dir("revision");
    let store = Store::open_at(&dir, Vault::File).unwrap_or_else(|e| panic!("{e}"));
    let resource = "https://mcp.example.com/mcp";
    let locked = store.lock_blocking(resource, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
    let mut record = locked.load();
    assert_eq!(record.revision, 0);
    record.grants.insert("https://auth.example.com".into(), grant("AT-1"));
    for expected in 1..=3 {
        locked.save(&mut record).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(record.revision, expected);
        assert_eq!(locked.load(), record);
    }
    // A stale copy saved later still gets a revision after the last one;
    // the guard moves to another thread, as into `spawn_blocking`.
    let mut stale = Record { resource: resource.into(), revision: 1, ..Record::default() };
    let saved = std::thread::spawn(move || locked.save(&mut stale).map(|()| stale).map_err(|e| e.to_string()));
    let stale = saved.join().unwrap_or_else(|_| panic!("the save panicked")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stale.revision, 4);
    assert_eq!(store.load(resource), stale);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_lock_held_by_another_store_value_fails_a_save_with_busy() {
    let dir = temp_dir("busy");
    let first = Store::open_at(&dir, Vault::File).unwrap_or_else(|e| panic!("{e}"));
    let second = Store::open_at(&dir, Vault::File).unwrap_or_else(|e| panic!("{e}"));
    let resource = "https://mcp.example.com/mcp";
    let held = first.lock_blocking(resource, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build();
    let refused = runtime
        .unwrap_or_else(|e| panic!("{e}"))
        .block_on(second.lock(resource, Duration::from_millis(100)))
        .map(|_| ())
        .map_err(|e| e.to_string());
    assert_eq!(refused, Err("another bridge holds the lock of the server's record for more than 100ms".to_owned()));
    // Another server's record has a lock of its own.
    assert!(second.lock_blocking("https://other.example.com/mcp", Duration::ZERO).is_ok());
    drop(held);
    let mut record = Record { resource: resource.into(), ..Record::default() };
    assert_eq!(second.save(&mut record).map_err(|e| e.to_string()), Ok(()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_record_that_is_a_symbolic_link_is_refused_and_replaced_not_followed() {
    let dir = temp_dir("link");
    let store = Store::open_at(&dir, Vault::File).unwrap_or_else(|e| panic!("{e}"));
    let resource = "https://mcp.example.com/mcp";
    let elsewhere = dir.with_extension("elsewhere.json");
    let planted = r#"{"redirect_port":50001,"grants":{"https://evil.example.com":{"client_id":"x","registration":"dynamic","access_token":"PLANTED"}}}"#;
    std::fs::write(&elsewhere, planted).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(&elsewhere, store.path(resource)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(store.load(resource), Record { resource: resource.into(), ..Record::default() });
    assert_eq!(store.ports_in_use(), Vec::<u16>::new());
    let mut record = Record { resource: resource.into(), redirect_port: Some(50002), ..Record::default() };
    store.save(&mut record).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(std::fs::read_to_string(&elsewhere).ok().as_deref(), Some(planted), "the target is untouched");
    assert_eq!(store.load(resource), record);
    let _ = std::fs::remove_file(&elsewhere);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_temporary_file_left_by_a_crash_is_no_record() {
    let dir = temp_dir("crash");
    let store = Store::open_at(&dir, Vault::File).unwrap_or_else(|e| panic!("{e}"));
    let resource = "https://mcp.example.com/mcp";
    let digest = Store::digest(resource);
    std::fs::write(dir.join(format!(".{digest}.1-2-3.tmp")), r#"{"redirect_port":50003,"grants":{}"#)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(store.load(resource), Record { resource: resource.into(), ..Record::default() });
    assert_eq!(store.ports_in_use(), Vec::<u16>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_secrets_of_the_newer_of_the_file_and_the_entry_win() {
    let mut file = Record { revision: 2, ..Record::default() };
    file.grants.insert("https://auth.example.com".into(), grant("AT-2"));
    let entry = |revision: u64, token: &str| Sealed {
        revision,
        grants: BTreeMap::from([(
            "https://auth.example.com".to_owned(),
            Secrets { access_token: Some(token.into()), ..Secrets::default() },
        )]),
    };
    let token = |r: Record| r.grants.get("https://auth.example.com").and_then(|g| g.access_token.clone());
    // A save that the credential store refused left the secrets in the
    // file and an older entry behind.
    assert_eq!(token(newest(file.clone(), entry(1, "AT-1"))).as_deref(), Some("AT-2"));
    assert_eq!(token(newest(file.clone(), entry(2, "AT-2k"))).as_deref(), Some("AT-2k"));
    assert_eq!(token(newest(file.clone(), entry(3, "AT-3"))).as_deref(), Some("AT-3"));
}

// --- Several processes on one store --------------------------------------

/// Set in a writer process: the folder of the shared store, the server,
/// the vault (`keyring` or `file`) and the writer's name.
const WRITER_DIR: &str = "MCP_BRIDGE_STORE_TEST_DIR";
const WRITER_RESOURCE: &str = "MCP_BRIDGE_STORE_TEST_RESOURCE";
const WRITER_VAULT: &str = "MCP_BRIDGE_STORE_TEST_VAULT";
const WRITER_ID: &str = "MCP_BRIDGE_STORE_TEST_WRITER";
const WRITERS: u64 = 4;
const ROUNDS: u64 = 40;
const COUNTER: &str = "https://auth.example.com";

/// `ROUNDS` read-modify-writes of the shared record, each under its lock:
/// a count one up, with an access token that names it, and this writer's
/// own round.
fn write_rounds(store: &Store, resource: &str, writer: &str) {
    let mut last = 0;
    for round in 1..=ROUNDS {
        let locked = store.lock_blocking(resource, Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}"));
        let mut record = locked.load();
        let counter = record.grants.entry(COUNTER.into()).or_default();
        let count = counter.expires_at.unwrap_or(0);
        assert!(count >= last, "the count went back from {last} to {count}: an update was lost");
        let expected = (count > 0).then(|| format!("AT-{count}"));
        assert_eq!(counter.access_token, expected, "the secret and the count are of one save");
        counter.expires_at = Some(count + 1);
        counter.access_token = Some(format!("AT-{}", count + 1));
        record.grants.entry(writer.into()).or_default().expires_at = Some(round);
        locked.save(&mut record).unwrap_or_else(|e| panic!("{e}"));
        last = count + 1;
    }
}

fn count_of(record: &Record, issuer: &str) -> Option<u64> {
    record.grants.get(issuer).and_then(|g| g.expires_at)
}

/// The vault of a writer: the credential store must answer when asked for.
fn vault_named(name: &str) -> Vault {
    if name != "keyring" {
        return Vault::File;
    }
    let vault = Vault::probe();
    assert_eq!(vault, Vault::Keyring, "no Secret Service answers: run the tests under scripts/with-secret-service");
    vault
}

/// One writer's rounds all land. Run alone it has a store of its own; run
/// by `several_processes`, it shares the store of `WRITER_DIR`.
#[test]
fn the_rounds_of_one_writer_all_land() {
    let shared = std::env::var_os(WRITER_DIR).map(PathBuf::from);
    let dir = shared.clone().unwrap_or_else(|| temp_dir("writer"));
    let resource = std::env::var(WRITER_RESOURCE).unwrap_or_else(|_| "https://mcp.example.com/alone".into());
    let writer = std::env::var(WRITER_ID).unwrap_or_else(|_| "writer-0".into());
    let vault = vault_named(&std::env::var(WRITER_VAULT).unwrap_or_default());
    let store = Store::open_at(&dir, vault).unwrap_or_else(|e| panic!("{e}"));
    write_rounds(&store, &resource, &writer);
    let record = store.load(&resource);
    assert_eq!(count_of(&record, &writer), Some(ROUNDS));
    if shared.is_none() {
        assert_eq!(count_of(&record, COUNTER), Some(ROUNDS));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `WRITERS` processes (this test binary, running the test above) doing
/// their rounds on one record at once, while this one reads the record
/// file without the lock (the hot path) and checks that each read is a
/// whole record. Returns the record at the end.
fn several_processes(name: &str, vault: &str) -> Record {
    let dir = temp_dir(name);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let resource = format!("https://mcp.example.com/{name}-{}-{nanos}", std::process::id());
    let store = Store::open_at(&dir, vault_named(vault)).unwrap_or_else(|e| panic!("{e}"));
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    let module = module_path!().split_once("::").map_or("", |(_, rest)| rest);
    let test = format!("{module}::the_rounds_of_one_writer_all_land");
    let mut writers: Vec<_> = (0..WRITERS)
        .map(|n| {
            Command::new(&exe)
                .args(["--exact", &test, "--test-threads=1"])
                .env(WRITER_DIR, &dir)
                .env(WRITER_RESOURCE, &resource)
                .env(WRITER_VAULT, vault)
                .env(WRITER_ID, format!("writer-{n}"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    let path = store.path(&resource);
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut reads = 0u64;
    let mut statuses = Vec::new();
    while statuses.len() < writers.len() {
        if let Some(bytes) = disk::read(&path) {
            let parsed = serde_json::from_slice::<Record>(&bytes);
            assert!(parsed.is_ok(), "a read found no whole record: {}", String::from_utf8_lossy(&bytes));
            reads += 1;
        }
        std::thread::sleep(Duration::from_millis(1));
        statuses = writers.iter_mut().filter_map(|w| w.try_wait().ok().flatten()).collect();
        if Instant::now() > deadline {
            writers.iter_mut().for_each(|w| drop(w.kill()));
            panic!("the writers did not finish in 120 s");
        }
    }
    assert!(statuses.iter().all(|s| s.success()), "a writer failed: {statuses:?}");
    assert!(reads > 0, "the reader read the record");
    let record = store.load(&resource);
    assert_eq!(count_of(&record, COUNTER), Some(WRITERS * ROUNDS), "an update was lost");
    let expected = format!("AT-{}", WRITERS * ROUNDS);
    assert_eq!(record.grants.get(COUNTER).and_then(|g| g.access_token.as_deref()), Some(expected.as_str()));
    for n in 0..WRITERS {
        assert_eq!(count_of(&record, &format!("writer-{n}")), Some(ROUNDS));
    }
    assert_eq!(record.revision, WRITERS * ROUNDS, "one revision per save");
    assert_eq!(names(&dir), vec![format!("{}.json", Store::digest(&resource))], "no temporary or lock file is left");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(text.contains(&expected), vault == "file", "the secrets are in the file with the file vault only");
    assert_eq!(store.forget(&resource).map_err(|e| e.to_string()), Ok(true));
    let _ = std::fs::remove_dir_all(&dir);
    record
}

/// Two VS Code windows on one server: several bridge processes do
/// read-modify-writes of one record at once. No update is lost, and a read
/// without the lock (the hot path) always finds a whole record.
#[test]
fn several_processes_on_one_record_lose_no_update_and_leave_it_whole() {
    several_processes("processes", "file");
}

/// The same with the secrets in a real Secret Service (run under
/// scripts/with-secret-service; fails without it): the revisions of the
/// entry and the file stay in step, and every load gets the last secrets.
#[test]
fn several_processes_with_a_secret_service_lose_no_update() {
    several_processes("processes-keyring", "keyring");
}
