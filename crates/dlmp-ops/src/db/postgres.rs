//! The PostgreSQL option (lua-api.md, "Persistence"; config `database = "postgres://..."`):
//! one connection on the worker thread that reconnects after the server restarts or drops
//! it. An operation in flight when the connection dies gets the error; the next one
//! connects again (ADR 0031). `?` marks are numbered for PostgreSQL ([`numbered`]) and
//! values convert to and from the column types of the common subset.

use std::error::Error;
use std::str::FromStr;
use std::time::Duration;

use bytes::BytesMut;
use postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use postgres::{Client, Config, NoTls};
use tracing::{info, warn};

use super::backend::Backend;
use super::placeholders::numbered;
use super::value::{DbError, DbOp, DbOutput, DbResult, DbValue, Row, Statement};

/// How long a connection attempt may take when the URL says nothing.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

type BoxError = Box<dyn Error + Sync + Send>;

/// A reconnecting PostgreSQL connection.
pub struct Postgres {
    config: Config,
    client: Option<Client>,
    connects: u64,
}

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Postgres")
            .field("connected", &self.client.is_some())
            .field("connects", &self.connects)
            .finish()
    }
}

impl Postgres {
    /// Reads `url` and connects once; a server that is down now is not an error (the
    /// first operation connects), a URL that does not parse is.
    pub fn new(url: &str) -> Result<Self, DbError> {
        let mut config =
            Config::from_str(url).map_err(|e| DbError(format!("database URL: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let mut pg = Postgres {
            config,
            client: None,
            connects: 0,
        };
        if let Err(e) = pg.client() {
            warn!("PostgreSQL not reachable yet: {e}");
        }
        Ok(pg)
    }

    /// Connections opened so far (1 plus the reconnects).
    #[must_use]
    pub fn connects(&self) -> u64 {
        self.connects
    }

    fn client(&mut self) -> Result<&mut Client, DbError> {
        if self.client.as_ref().is_some_and(Client::is_closed) {
            self.client = None;
        }
        if self.client.is_none() {
            let client = self
                .config
                .connect(NoTls)
                .map_err(|e| DbError(format!("database unavailable: {e}")))?;
            self.connects += 1;
            if self.connects > 1 {
                info!(connects = self.connects, "reconnected to PostgreSQL");
            }
            self.client = Some(client);
        }
        self.client
            .as_mut()
            .ok_or_else(|| DbError("database unavailable".into()))
    }
}

fn attempt(client: &mut Client, op: &DbOp) -> Result<DbOutput, postgres::Error> {
    match op {
        DbOp::Exec(s) => execute(client, s).map(DbOutput::Changes),
        DbOp::Query(s) => query(client, s).map(DbOutput::Rows),
        DbOp::Transaction(list) => {
            let mut tx = client.transaction()?;
            for s in list {
                execute(&mut tx, s)?;
            }
            tx.commit().map(|()| DbOutput::Committed)
        }
    }
}

fn params(s: &Statement) -> Vec<&(dyn ToSql + Sync)> {
    s.params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

fn execute(
    client: &mut impl postgres::GenericClient,
    s: &Statement,
) -> Result<u64, postgres::Error> {
    client.execute(numbered(&s.sql).as_str(), &params(s))
}

fn query(
    client: &mut impl postgres::GenericClient,
    s: &Statement,
) -> Result<Vec<Row>, postgres::Error> {
    let rows = client.query(numbered(&s.sql).as_str(), &params(s))?;
    rows.iter()
        .map(|row| {
            (0..row.len())
                .map(|i| {
                    let name = row.columns()[i].name().to_owned();
                    row.try_get::<_, PgValue>(i).map(|v| (name, v.0))
                })
                .collect()
        })
        .collect()
}

impl Backend for Postgres {
    fn run(&mut self, op: &DbOp) -> DbResult {
        let result = attempt(self.client()?, op);
        result.map_err(|e| {
            if self.client.as_ref().is_none_or(Client::is_closed) {
                self.client = None;
                DbError(format!("database connection lost: {e}"))
            } else {
                DbError(describe(&e))
            }
        })
    }

    fn engine(&self) -> &'static str {
        "postgres"
    }
}

/// The server's message with its detail, without the crate's "db error:" prefix.
fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{} ({detail})", db.message()),
            None => db.message().to_owned(),
        },
        None => match e.source() {
            Some(source) => format!("{e}: {source}"),
            None => e.to_string(),
        },
    }
}

/// A parameter takes the type PostgreSQL inferred for its `$n`: a Lua integer fits an
/// INTEGER (int4) column as well as a BIGINT one, a number a REAL one.
impl ToSql for DbValue {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        match self {
            DbValue::Null => Ok(IsNull::Yes),
            DbValue::Integer(i) => match *ty {
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT8 => i.to_sql(ty, out),
                Type::FLOAT4 => (*i as f32).to_sql(ty, out),
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                Type::BOOL => (*i != 0).to_sql(ty, out),
                Type::NUMERIC => numeric(&i.to_string(), out),
                _ if text_like(ty) => i.to_string().to_sql(ty, out),
                _ => Err(mismatch("an integer", ty)),
            },
            DbValue::Real(f) => match *ty {
                Type::FLOAT4 => (*f as f32).to_sql(ty, out),
                Type::FLOAT8 => f.to_sql(ty, out),
                Type::NUMERIC if f.is_finite() => numeric(&f.to_string(), out),
                _ if text_like(ty) => f.to_string().to_sql(ty, out),
                _ => Err(mismatch("a number", ty)),
            },
            DbValue::Text(s) => match *ty {
                Type::BYTEA => s.as_bytes().to_sql(ty, out),
                _ if text_like(ty) => s.to_sql(ty, out),
                _ => Err(mismatch("a string", ty)),
            },
            DbValue::Blob(b) => match *ty {
                Type::BYTEA => b.to_sql(ty, out),
                _ => Err(mismatch("a binary string", ty)),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

fn text_like(ty: &Type) -> bool {
    <&str as ToSql>::accepts(ty)
}

fn mismatch(what: &str, ty: &Type) -> BoxError {
    format!("{what} cannot go into a {ty} column").into()
}

/// A decimal string as PostgreSQL's binary NUMERIC: digits of base 10000 around the point.
fn numeric(decimal: &str, out: &mut BytesMut) -> Result<IsNull, BoxError> {
    let (negative, digits) = match decimal.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, decimal),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return Err(format!("{decimal} is not a decimal number").into());
    }
    let pad_int = (4 - int.len() % 4) % 4;
    let int = format!("{}{int}", "0".repeat(pad_int));
    let pad_frac = (4 - frac.len() % 4) % 4;
    let frac_padded = format!("{frac}{}", "0".repeat(pad_frac));
    let groups: Vec<i16> = int
        .as_bytes()
        .chunks(4)
        .chain(frac_padded.as_bytes().chunks(4))
        .map(|c| c.iter().fold(0i16, |acc, d| acc * 10 + i16::from(d - b'0')))
        .collect();
    let weight = i16::try_from(int.len() / 4)? - 1;
    let dscale = i16::try_from(frac.len())?;
    let sign: u16 = if negative { 0x4000 } else { 0 };
    out.extend_from_slice(&i16::try_from(groups.len())?.to_be_bytes());
    out.extend_from_slice(&weight.to_be_bytes());
    out.extend_from_slice(&sign.to_be_bytes());
    out.extend_from_slice(&dscale.to_be_bytes());
    for g in groups {
        out.extend_from_slice(&g.to_be_bytes());
    }
    Ok(IsNull::No)
}

/// A column value read into the common subset: integers (and booleans as 0/1), floats,
/// NUMERIC (an integer when it has no fraction), text, bytes.
struct PgValue(DbValue);

impl<'a> FromSql<'a> for PgValue {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        let v = match *ty {
            Type::INT2 => DbValue::Integer(i16::from_sql(ty, raw)?.into()),
            Type::INT4 => DbValue::Integer(i32::from_sql(ty, raw)?.into()),
            Type::INT8 => DbValue::Integer(i64::from_sql(ty, raw)?),
            Type::OID => DbValue::Integer(u32::from_sql(ty, raw)?.into()),
            Type::FLOAT4 => DbValue::Real(f32::from_sql(ty, raw)?.into()),
            Type::FLOAT8 => DbValue::Real(f64::from_sql(ty, raw)?),
            Type::BOOL => DbValue::Integer(bool::from_sql(ty, raw)?.into()),
            Type::BYTEA => DbValue::Blob(raw.to_vec()),
            Type::NUMERIC => read_numeric(raw)?,
            _ if <&str as FromSql>::accepts(ty) => {
                DbValue::Text(<&str>::from_sql(ty, raw)?.to_owned())
            }
            _ => {
                return Err(format!(
                    "a {ty} column is outside the common subset; cast it (::text, ::bigint)"
                )
                .into());
            }
        };
        Ok(PgValue(v))
    }

    fn from_sql_null(_: &Type) -> Result<Self, BoxError> {
        Ok(PgValue(DbValue::Null))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// PostgreSQL's binary NUMERIC: an INTEGER when it has no fraction and fits, else a REAL.
fn read_numeric(raw: &[u8]) -> Result<DbValue, BoxError> {
    let word = |i: usize| -> Result<i16, BoxError> {
        raw.get(i * 2..i * 2 + 2)
            .map(|b| i16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| "a NUMERIC value cut short".into())
    };
    let (n, weight, sign, dscale) = (word(0)?, word(1)?, word(2)? as u16, word(3)?);
    if sign == 0xC000 {
        return Ok(DbValue::Real(f64::NAN));
    }
    let mut value = 0f64;
    let mut int: Option<i64> = Some(0);
    for i in 0..usize::try_from(n)? {
        let digit = word(4 + i)?;
        let power = i32::from(weight) - i32::try_from(i)?;
        value += f64::from(digit) * 10000f64.powi(power);
        int = match (int, u32::try_from(power)) {
            (Some(acc), Ok(p)) => 10000i64
                .checked_pow(p)
                .and_then(|m| acc.checked_add(i64::from(digit).checked_mul(m)?)),
            (acc, Err(_)) if digit == 0 => acc,
            _ => None,
        };
    }
    let negative = sign == 0x4000;
    Ok(match int {
        Some(i) if dscale == 0 => DbValue::Integer(if negative { -i } else { i }),
        _ => DbValue::Real(if negative { -value } else { value }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numerics_round_trip_through_the_binary_form() {
        for (text, expected) in [
            ("0", DbValue::Integer(0)),
            ("12345678", DbValue::Integer(12_345_678)),
            ("-42", DbValue::Integer(-42)),
            ("1.5", DbValue::Real(1.5)),
            ("-0.0625", DbValue::Real(-0.0625)),
        ] {
            let mut buf = BytesMut::new();
            numeric(text, &mut buf).unwrap();
            assert_eq!(read_numeric(&buf).unwrap(), expected, "{text}");
        }
        assert!(numeric("1e5", &mut BytesMut::new()).is_err());
        assert!(read_numeric(&[0, 1]).is_err());
    }

    #[test]
    fn a_url_that_does_not_parse_is_an_error() {
        assert!(Postgres::new("postgres://host:notaport/db").is_err());
    }
}
