//! The codec on the hot paths: decoding PlayerSync and VehicleFrame, encoding
//! RemotePlayerSync and RemoteVehicleFrame. Target on the 2-core machine: under 100 ns each.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dlmp::protocol::player::samples::sync as player;
use dlmp::protocol::player::sync::PlayerSync;
use dlmp::protocol::vehicle::frame::VehicleFrame;
use dlmp::protocol::vehicle::samples::frame as vehicle;
use dlmp::protocol::{ClientPacket, MAX_DATAGRAM, Packet};

fn codec(c: &mut Criterion) {
    let player_sync = player::player_sync().to_bytes().expect("fixture encodes");
    let vehicle_frame = vehicle::vehicle_frame()
        .to_bytes()
        .expect("fixture encodes");
    let remote_player_sync = player::remote_player_sync();
    let remote_vehicle_frame = vehicle::remote_vehicle_frame();
    let mut buf = [0u8; MAX_DATAGRAM];

    c.bench_function("decode PlayerSync", |b| {
        b.iter(|| PlayerSync::decode(black_box(&player_sync)))
    });
    c.bench_function("decode PlayerSync via ClientPacket", |b| {
        b.iter(|| ClientPacket::decode(black_box(&player_sync)))
    });
    c.bench_function("decode VehicleFrame", |b| {
        b.iter(|| VehicleFrame::decode(black_box(&vehicle_frame)))
    });
    c.bench_function("decode VehicleFrame via ClientPacket", |b| {
        b.iter(|| ClientPacket::decode(black_box(&vehicle_frame)))
    });
    c.bench_function("encode RemotePlayerSync", |b| {
        b.iter(|| black_box(&remote_player_sync).encode(black_box(&mut buf)))
    });
    c.bench_function("encode RemoteVehicleFrame", |b| {
        b.iter(|| black_box(&remote_vehicle_frame).encode(black_box(&mut buf)))
    });
}

criterion_group!(benches, codec);
criterion_main!(benches);
