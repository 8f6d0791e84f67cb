//! Password hashes (ADR 0102): argon2id in the PHC string form (`$argon2id$v=19$...`), with
//! a random salt each. The admin panel's accounts keep only such hashes; gamemode accounts
//! get the same two functions as `dlmp.hash_password` and `dlmp.verify_password`
//! ([`PasswordPlugin`], ADR 0105).

mod script;

pub use script::{MAX_PASSWORD, PasswordPlugin, QUEUE, ScriptPasswords};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};

/// Bytes of random salt in each hash.
const SALT_BYTES: usize = 16;

/// A hash that cannot be read, or no randomness for a salt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordError(pub String);

impl std::fmt::Display for PasswordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PasswordError {}

/// The argon2id hash of `password` with a fresh random salt, as a PHC string.
pub fn hash_password(password: &str) -> Result<String, PasswordError> {
    let mut salt = [0u8; SALT_BYTES];
    getrandom::fill(&mut salt).map_err(|e| PasswordError(format!("no randomness: {e}")))?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| PasswordError(e.to_string()))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| PasswordError(e.to_string()))
}

/// Whether `password` is the one `hash` was made from; a hash that is not an argon2 PHC
/// string is an error, never a match.
pub fn verify_password(password: &str, hash: &str) -> Result<bool, PasswordError> {
    let parsed = parse(hash)?;
    Ok(Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok())
}

/// Checks that `hash` is an argon2 PHC string (the config check).
pub fn check_hash(hash: &str) -> Result<(), PasswordError> {
    parse(hash).map(drop)
}

fn parse(hash: &str) -> Result<PasswordHash<'_>, PasswordError> {
    let parsed =
        PasswordHash::new(hash).map_err(|e| PasswordError(format!("not a password hash ({e})")))?;
    if !parsed.algorithm.as_str().starts_with("argon2") {
        return Err(PasswordError(format!(
            "{} is not an argon2 hash",
            parsed.algorithm
        )));
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only_and_is_salted() {
        let a = hash_password("correct horse").expect("a hash");
        let b = hash_password("correct horse").expect("a hash");
        assert!(a.starts_with("$argon2id$"), "{a}");
        assert_ne!(a, b, "each hash has its own salt");
        assert_eq!(verify_password("correct horse", &a), Ok(true));
        assert_eq!(verify_password("correct horse!", &a), Ok(false));
        assert_eq!(verify_password("", &b), Ok(false));
    }

    #[test]
    fn a_string_that_is_no_argon2_hash_is_an_error() {
        assert!(verify_password("x", "plain text").is_err());
        assert!(check_hash("").is_err());
        assert!(check_hash("$pbkdf2-sha256$i=1000$c2FsdA$aGFzaA").is_err());
        let good = hash_password("x").expect("a hash");
        assert!(check_hash(&good).is_ok());
    }
}
