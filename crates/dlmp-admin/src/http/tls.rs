//! HTTPS for the panel: the certificate chain and key of the config, rustls with ring.

use std::io;
use std::path::Path;
use std::sync::Arc;

use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

pub(crate) type Acceptor = tokio_rustls::TlsAcceptor;

/// The acceptor for `cert` (a PEM chain, the server's first) and `key` (PEM); an error
/// names the file.
pub(crate) fn acceptor(cert: &Path, key: &Path) -> io::Result<Acceptor> {
    let named = |path: &Path, e: &dyn std::fmt::Display| {
        io::Error::other(format!("{}: {e}", path.display()))
    };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| named(cert, &e))?
        .collect::<Result<_, _>>()
        .map_err(|e| named(cert, &e))?;
    if chain.is_empty() {
        return Err(named(cert, &"no certificate in the file"));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| named(key, &e))?;
    // ring, as `dlmp.fetch` uses: aws-lc-rs would add a C and CMake build for the
    // post-quantum key exchange alone.
    #[allow(deprecated, reason = "ring lacks only the post-quantum key exchange")]
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(io::Error::other)?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| io::Error::other(format!("the certificate and key: {e}")))?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}
