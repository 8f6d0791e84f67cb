# dlmp tasks. `just --list` shows them.

# Start the server with the default gamemode (the README's start command).
run *args:
    cargo run --release -- {{args}}

# Run every test (the README's test command).
test:
    cargo test

# Formatting and lints as CI checks them.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
    RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

# Criterion benchmarks (codec, server tick, reliable lanes, streaming reconcile, Lua dispatch).
bench:
    cargo bench

# Rewrite fixtures/ from the fixture table (crates/dlmp-protocol) after a field change.
fixtures:
    cargo run -p dlmp-protocol --example fixtures

# Fuzz one decoder: `just fuzz decode_client`, `just fuzz decode_server` or `just fuzz decode_bundle`.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); RUSTC_BOOTSTRAP lets it use the stable toolchain.
fuzz target="decode_client" seconds="60":
    cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run {{target}} -- -max_total_time={{seconds}} -max_len=1300
