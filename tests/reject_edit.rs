//! editing.md §2: EditState, EntityEdit and EditCamera refuse a wrong length and each
//! range, enum, finiteness, combination and placeholder rule the page states for them;
//! the boundary values decode.

mod support;

use dlmp::protocol::ErrorKind::{self, *};
use dlmp::protocol::edit::entity::EditAction;
use dlmp::protocol::edit::samples as ed;
use dlmp::protocol::edit::state::{EditEndReason, EditFlags, EditKind, EditKinds, EditSessionId};
use dlmp::protocol::edit::{EditCamera, EditState, EntityEdit};
use dlmp::protocol::geometry::Vec3;
use dlmp::protocol::world::shared::EntityRev;
use dlmp::protocol::{Packet, Wire};
use rstest::rstest;
use support::*;

/// `p` changed by `m` still decodes to itself and encodes.
#[track_caller]
fn assert_accepts<P: Packet>(valid: &P, m: impl FnOnce(&mut P)) {
    let mut p = valid.clone();
    m(&mut p);
    assert_eq!(P::decode(&raw(&p)).as_ref(), Ok(&p));
    assert_eq!(p.to_bytes().map(|b| b.len()), Ok(1 + P::SIZE));
}

#[test]
fn totals_match_the_page() {
    assert_eq!(1 + EditState::SIZE, 37);
    assert_eq!(1 + EntityEdit::SIZE, 55);
    assert_eq!(1 + EditCamera::SIZE, 41);
}

#[rstest]
#[case::edit_state(|| assert_exact_length(&ed::edit_state()))]
#[case::edit_state_end(|| assert_exact_length(&ed::edit_state_end()))]
#[case::entity_edit(|| assert_exact_length(&ed::entity_edit()))]
#[case::entity_edit_leave(|| assert_exact_length(&ed::entity_edit_leave()))]
#[case::edit_camera(|| assert_exact_length(&ed::edit_camera()))]
fn exact_length(#[case] check: fn()) {
    check();
}

// EditState

fn no_selection() -> EditState {
    let mut p = ed::edit_state();
    p.selected_kind = EditKind::None;
    p.selected_id = u32::MAX;
    p.selected_rev = EntityRev(0);
    p
}

#[rstest]
#[case::flags_bit_2(ed::edit_state(), |p: &mut EditState| p.flags = EditFlags(0b111), "flags", Reserved)]
#[case::flags_bit_7(ed::edit_state(), |p: &mut EditState| p.flags = EditFlags(0x80), "flags", Reserved)]
#[case::kinds_bit_0(ed::edit_state(), |p: &mut EditState| p.kinds = EditKinds(0b11), "kinds", Reserved)]
#[case::kinds_bit_6(ed::edit_state(), |p: &mut EditState| p.kinds = EditKinds(0b100_0010), "kinds", Reserved)]
#[case::kinds_bit_7(ed::edit_state(), |p: &mut EditState| p.kinds = EditKinds(0b1000_0010), "kinds", Reserved)]
#[case::end_flags_bit_6(ed::edit_state_end(), |p: &mut EditState| p.flags = EditFlags(0x40), "flags", Reserved)]
#[case::kinds_none(no_selection(), |p: &mut EditState| p.kinds = EditKinds(0), "kinds", Combination)]
#[case::anchor_x_out(ed::edit_state(), |p: &mut EditState| p.anchor.x = 6000.5, "anchor", Range)]
#[case::anchor_z_low(ed::edit_state(), |p: &mut EditState| p.anchor.z = -200.5, "anchor", Range)]
#[case::anchor_z_high(ed::edit_state(), |p: &mut EditState| p.anchor.z = 4000.5, "anchor", Range)]
#[case::range_under_1(ed::edit_state(), |p: &mut EditState| p.range = 0.5, "range", Range)]
#[case::range_over(ed::edit_state(), |p: &mut EditState| p.range = 12_000.5, "range", Range)]
#[case::selected_kind_not_in_kinds(ed::edit_state(), |p: &mut EditState| p.selected_kind = EditKind::Label, "selected_kind", Combination)]
#[case::nothing_selected_with_an_id(no_selection(), |p: &mut EditState| p.selected_id = 5, "selected_id", Combination)]
#[case::nothing_selected_with_a_rev(no_selection(), |p: &mut EditState| p.selected_rev = EntityRev(2), "selected_rev", Combination)]
#[case::selected_without_an_id(ed::edit_state(), |p: &mut EditState| p.selected_id = u32::MAX, "selected_id", Combination)]
#[case::reason_in_a_session(ed::edit_state(), |p: &mut EditState| p.reason = EditEndReason::Death, "reason", Reserved)]
#[case::end_with_flags(ed::edit_state_end(), |p: &mut EditState| p.flags = EditFlags(1), "flags", Reserved)]
#[case::end_with_kinds(ed::edit_state_end(), |p: &mut EditState| p.kinds = EditKinds(2), "kinds", Reserved)]
#[case::end_with_anchor(ed::edit_state_end(), |p: &mut EditState| p.anchor.y = 1.0, "anchor", Reserved)]
#[case::end_with_negative_zero(ed::edit_state_end(), |p: &mut EditState| p.anchor.z = -0.0, "anchor", Reserved)]
#[case::end_with_range(ed::edit_state_end(), |p: &mut EditState| p.range = 300.0, "range", Reserved)]
#[case::end_with_a_kind(ed::edit_state_end(), |p: &mut EditState| p.selected_kind = EditKind::Object, "selected_kind", Reserved)]
#[case::end_with_an_id(ed::edit_state_end(), |p: &mut EditState| p.selected_id = 0, "selected_id", Reserved)]
#[case::end_with_a_rev(ed::edit_state_end(), |p: &mut EditState| p.selected_rev = EntityRev(1), "selected_rev", Reserved)]
fn edit_state_rejects(
    #[case] valid: EditState,
    #[case] m: fn(&mut EditState),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&valid, m, field, kind);
}

#[rstest]
#[case::selected_kind_6(ed::edit_state(), "selected_kind", 0, &[6], "selected_kind", Enum)]
#[case::reason_5(ed::edit_state_end(), "reason", 0, &[5], "reason", Enum)]
#[case::anchor_nan(ed::edit_state(), "anchor", 4, &NAN, "y", NonFinite)]
#[case::range_inf(ed::edit_state(), "range", 0, &INF, "range", NonFinite)]
#[case::end_range_nan(ed::edit_state_end(), "range", 0, &NAN, "range", NonFinite)]
fn edit_state_rejects_bytes(
    #[case] valid: EditState,
    #[case] at: &str,
    #[case] inner: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<EditState>(at) + inner;
    assert_rejects_bytes(&valid, at, patch, field, kind);
}

#[rstest]
#[case::range_min(|p: &mut EditState| p.range = 1.0)]
#[case::range_max(|p: &mut EditState| p.range = 12_000.0)]
#[case::anchor_corner(|p: &mut EditState| p.anchor = Vec3::new(-6000.0, 6000.0, 4000.0))]
#[case::every_kind(|p: &mut EditState| p.kinds = EditKinds::ALL)]
#[case::own_camera_no_pick(|p: &mut EditState| p.flags = EditFlags(0))]
#[case::nothing_selected(|p: &mut EditState| *p = no_selection())]
#[case::colshape_selected(|p: &mut EditState| { p.kinds = EditKinds::ALL; p.selected_kind = EditKind::Colshape; p.selected_id = 0 })]
fn edit_state_accepts(#[case] m: fn(&mut EditState)) {
    assert_accepts(&ed::edit_state(), m);
}

#[rstest]
#[case::gamemode(EditEndReason::Gamemode)]
#[case::player(EditEndReason::Player)]
#[case::death(EditEndReason::Death)]
#[case::scope(EditEndReason::Scope)]
#[case::resource(EditEndReason::Resource)]
fn every_end_reason_decodes(#[case] reason: EditEndReason) {
    assert_accepts(&ed::edit_state_end(), |p| p.reason = reason);
}

// EntityEdit

/// An update of `kind` with pose `a`, `b`.
fn update(kind: EditKind, a: Vec3, b: [f32; 4]) -> EntityEdit {
    EntityEdit {
        action: EditAction::Update,
        kind,
        a,
        b,
        ..ed::entity_edit()
    }
}

fn pickup() -> EntityEdit {
    update(EditKind::Pickup, Vec3::new(4000.0, -4000.0, 12.0), [0.0; 4])
}

fn label() -> EntityEdit {
    update(EditKind::Label, Vec3::new(10.0, 20.0, 3.0), [0.0; 4])
}

fn zone() -> EntityEdit {
    update(
        EditKind::GangZone,
        Vec3::new(-100.0, -50.0, 0.0),
        [100.0, 50.0, 0.0, 0.0],
    )
}

fn colshape() -> EntityEdit {
    update(
        EditKind::Colshape,
        Vec3::new(1.0, 2.0, 3.0),
        [12_000.0, -12_000.0, 5.0, 0.0],
    )
}

fn select() -> EntityEdit {
    EntityEdit {
        action: EditAction::Select,
        a: Vec3::ZERO,
        b: [0.0; 4],
        ..ed::entity_edit()
    }
}

#[rstest]
#[case::kind_none_select(select(), |p: &mut EntityEdit| p.kind = EditKind::None, "kind", Combination)]
#[case::kind_none_commit(ed::entity_edit(), |p: &mut EntityEdit| p.kind = EditKind::None, "kind", Combination)]
#[case::leave_with_kind(ed::entity_edit_leave(), |p: &mut EntityEdit| p.kind = EditKind::Pickup, "kind", Reserved)]
#[case::leave_with_entity(ed::entity_edit_leave(), |p: &mut EntityEdit| p.entity_id = 3, "entity_id", Reserved)]
#[case::leave_with_rev(ed::entity_edit_leave(), |p: &mut EntityEdit| p.rev = EntityRev(1), "rev", Reserved)]
#[case::leave_with_a(ed::entity_edit_leave(), |p: &mut EntityEdit| p.a.x = 1.0, "a", Reserved)]
#[case::leave_with_b(ed::entity_edit_leave(), |p: &mut EntityEdit| p.b[3] = 1.0, "b", Reserved)]
#[case::select_with_a(select(), |p: &mut EntityEdit| p.a.z = 2.0, "a", Reserved)]
#[case::select_with_negative_zero(select(), |p: &mut EntityEdit| p.b[0] = -0.0, "b", Reserved)]
#[case::cancel_with_b(select(), |p: &mut EntityEdit| { p.action = EditAction::Cancel; p.b[1] = 90.0 }, "b", Reserved)]
#[case::object_out_of_world(ed::entity_edit(), |p: &mut EntityEdit| p.a.x = 6000.5, "a", Range)]
#[case::object_below_world(ed::entity_edit(), |p: &mut EntityEdit| p.a.z = -200.5, "a", Range)]
#[case::object_angle_over(ed::entity_edit(), |p: &mut EntityEdit| p.b[1] = 3600.5, "b", Range)]
#[case::object_angle_under(ed::entity_edit(), |p: &mut EntityEdit| p.b[2] = -3601.0, "b", Range)]
#[case::object_fourth_b(ed::entity_edit(), |p: &mut EntityEdit| p.b[3] = 1.0, "b", Reserved)]
#[case::pickup_x_over_4095(pickup(), |p: &mut EntityEdit| p.a.x = 4095.5, "a", Range)]
#[case::pickup_z_over(pickup(), |p: &mut EntityEdit| p.a.z = 4000.5, "a", Range)]
#[case::pickup_b(pickup(), |p: &mut EntityEdit| p.b[0] = 1.0, "b", Reserved)]
#[case::label_out_of_world(label(), |p: &mut EntityEdit| p.a.y = -6000.5, "a", Range)]
#[case::label_b(label(), |p: &mut EntityEdit| p.b[2] = 0.5, "b", Reserved)]
#[case::zone_a_z(zone(), |p: &mut EntityEdit| p.a.z = 1.0, "a", Reserved)]
#[case::zone_b_z(zone(), |p: &mut EntityEdit| p.b[2] = 1.0, "b", Reserved)]
#[case::zone_corner_out(zone(), |p: &mut EntityEdit| p.b[0] = 6000.5, "b", Range)]
#[case::zone_min_out(zone(), |p: &mut EntityEdit| p.a.y = -6001.0, "b", Range)]
#[case::zone_flat_x(zone(), |p: &mut EntityEdit| p.b[0] = p.a.x, "b", Combination)]
#[case::zone_inverted_y(zone(), |p: &mut EntityEdit| p.b[1] = p.a.y - 1.0, "b", Combination)]
#[case::colshape_a_out(colshape(), |p: &mut EntityEdit| p.a.z = 4000.5, "a", Range)]
#[case::colshape_b_over(colshape(), |p: &mut EntityEdit| p.b[0] = 12_000.5, "b", Range)]
#[case::colshape_fourth_b(colshape(), |p: &mut EntityEdit| p.b[3] = 2.0, "b", Reserved)]
fn entity_edit_rejects(
    #[case] valid: EntityEdit,
    #[case] m: fn(&mut EntityEdit),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&valid, m, field, kind);
}

#[rstest]
#[case::action_5(ed::entity_edit(), "action", 0, &[5], "action", Enum)]
#[case::kind_6(ed::entity_edit(), "kind", 0, &[6], "kind", Enum)]
#[case::a_nan(ed::entity_edit(), "a", 0, &NAN, "x", NonFinite)]
#[case::b_inf(ed::entity_edit(), "b", 8, &INF, "b", NonFinite)]
#[case::select_nan(select(), "b", 12, &NAN, "b", NonFinite)]
#[case::leave_nan(ed::entity_edit_leave(), "a", 8, &NAN, "z", NonFinite)]
fn entity_edit_rejects_bytes(
    #[case] valid: EntityEdit,
    #[case] at: &str,
    #[case] inner: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<EntityEdit>(at) + inner;
    assert_rejects_bytes(&valid, at, patch, field, kind);
}

#[rstest]
#[case::object_corner(ed::entity_edit(), |p: &mut EntityEdit| p.a = Vec3::new(6000.0, -6000.0, -200.0))]
#[case::object_angles_max(ed::entity_edit(), |p: &mut EntityEdit| p.b = [3600.0, -3600.0, 3600.0, 0.0])]
#[case::object_update(ed::entity_edit(), |p: &mut EntityEdit| p.action = EditAction::Update)]
#[case::pickup_corner(pickup(), |p: &mut EntityEdit| p.a = Vec3::new(-4095.0, 4095.0, 4000.0))]
#[case::label_commit(label(), |p: &mut EntityEdit| p.action = EditAction::Commit)]
#[case::zone_whole_world(zone(), |p: &mut EntityEdit| { p.a = Vec3::new(-6000.0, -6000.0, 0.0); p.b = [6000.0, 6000.0, 0.0, 0.0] })]
#[case::colshape_box(colshape(), |p: &mut EntityEdit| p.b = [6000.0, 6000.0, 4000.0, 0.0])]
#[case::select(select(), |_: &mut EntityEdit| {})]
#[case::cancel(select(), |p: &mut EntityEdit| p.action = EditAction::Cancel)]
#[case::select_a_stale_session(select(), |p: &mut EntityEdit| p.session = EditSessionId(0))]
#[case::leave(ed::entity_edit_leave(), |_: &mut EntityEdit| {})]
fn entity_edit_accepts(#[case] valid: EntityEdit, #[case] m: fn(&mut EntityEdit)) {
    assert_accepts(&valid, m);
}

// EditCamera

#[rstest]
#[case::pos_x_out(|p: &mut EditCamera| p.pos.x = -6000.5, "pos", Range)]
#[case::pos_z_high(|p: &mut EditCamera| p.pos.z = 4000.5, "pos", Range)]
#[case::front_short(|p: &mut EditCamera| p.front = Vec3::new(0.0, 0.89, 0.0), "front", Range)]
#[case::front_long(|p: &mut EditCamera| p.front = Vec3::new(1.11, 0.0, 0.0), "front", Range)]
#[case::front_zero(|p: &mut EditCamera| p.front = Vec3::ZERO, "front", Range)]
fn edit_camera_rejects(
    #[case] m: fn(&mut EditCamera),
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    assert_rejects(&ed::edit_camera(), m, field, kind);
}

#[rstest]
#[case::pos_nan("pos", 0, &NAN, "x", NonFinite)]
#[case::front_inf("front", 8, &INF, "z", NonFinite)]
fn edit_camera_rejects_bytes(
    #[case] at: &str,
    #[case] inner: usize,
    #[case] patch: &[u8],
    #[case] field: &str,
    #[case] kind: ErrorKind,
) {
    let at = offset::<EditCamera>(at) + inner;
    assert_rejects_bytes(&ed::edit_camera(), at, patch, field, kind);
}

#[rstest]
#[case::front_short_edge(|p: &mut EditCamera| p.front = Vec3::new(0.0, 0.0, -0.9))]
#[case::front_long_edge(|p: &mut EditCamera| p.front = Vec3::new(1.1, 0.0, 0.0))]
#[case::pos_corner(|p: &mut EditCamera| p.pos = Vec3::new(6000.0, 6000.0, -200.0))]
fn edit_camera_accepts(#[case] m: fn(&mut EditCamera)) {
    assert_accepts(&ed::edit_camera(), m);
}
