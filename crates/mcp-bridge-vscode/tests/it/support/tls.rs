//! A test PKI for the HTTPS upstreams of the tests.

use std::path::{Path, PathBuf};

/// A test CA made at test time, and a server certificate it signed for
/// `hosts` (names or IP addresses), as PEM files in `dir`.
pub struct Pki {
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
}

pub fn pki(dir: &Path, hosts: &[&str]) -> Pki {
    use rcgen::{
        BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
        KeyUsagePurpose,
    };
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(DnType::CommonName, "mcp-bridge test CA");
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("a CA key")).expect("the CA");
    let key = KeyPair::generate().expect("a server key");
    let mut params =
        CertificateParams::new(hosts.iter().map(|h| h.to_string()).collect::<Vec<_>>()).expect("server parameters");
    params.distinguished_name.push(DnType::CommonName, hosts.first().copied().unwrap_or("localhost"));
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    let cert = params.signed_by(&key, &ca).expect("the server certificate");
    let files = Pki { ca: dir.join("ca.pem"), cert: dir.join("cert.pem"), key: dir.join("key.pem") };
    std::fs::write(&files.ca, ca.pem()).expect("write ca.pem");
    std::fs::write(&files.cert, cert.pem()).expect("write cert.pem");
    std::fs::write(&files.key, key.serialize_pem()).expect("write key.pem");
    files
}
