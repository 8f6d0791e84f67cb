//! The gamemode's side of the server query (lua-api.md, "The server query") in the
//! harness: what the published snapshot holds after the calls, and what goes with a
//! stopped resource.

use dlmp::harness::TempScripts;
use dlmp::protocol::Packet;
use dlmp::protocol::query::samples as s;
use dlmp::protocol::query::{PlayerList, Rules, ServerInfo};
use dlmp::query::QueryPublisher;
use dlmp::script::ScriptHost;

fn published(h: &dlmp::harness::Harness) -> (ServerInfo, Rules, PlayerList) {
    let snapshot = h.world().resource::<QueryPublisher>().0.load();
    let answer = |req: Vec<u8>| dlmp::net::query::answer(&req, &snapshot).expect("an answer");
    (
        ServerInfo::decode(&answer(s::query_info().to_bytes().expect("valid"))).expect("valid"),
        Rules::decode(&answer(s::query_rules().to_bytes().expect("valid"))).expect("valid"),
        PlayerList::decode(&answer(s::query_players().to_bytes().expect("valid"))).expect("valid"),
    )
}

#[test]
fn rules_text_and_scores_are_published_and_go_with_their_resource() {
    let s = TempScripts::new("query");
    s.resource(
        "gm",
        r#"
        dlmp.set_game_mode_text("Deathmatch")
        dlmp.set_rule("mapname", "LS")
        dlmp.set_rule("gone", "soon")
        dlmp.set_rule("gone", nil)
        dlmp.on("player_connect", function(p)
            p:set_score(-7)
            dlmp.send_chat("score " .. p:score())
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.steps(2);
    assert_eq!(h.chat_lines(a), ["score -7"]);
    let (info, rules, players) = published(&h);
    assert_eq!(info.gamemode.as_str(), "Deathmatch");
    assert_eq!(info.players, 1);
    let keys: Vec<(&str, &str)> = rules
        .rules
        .0
        .iter()
        .map(|r| (r.key.as_str(), r.value.as_str()))
        .collect();
    assert_eq!(
        keys,
        [("mapname", "LS"), ("version", env!("CARGO_PKG_VERSION"))]
    );
    assert_eq!(players.players.0.len(), 1);
    assert_eq!(players.players.0[0].score, -7);
    assert_eq!(players.players.0[0].name.as_str(), "alice");

    h.world_mut()
        .non_send_mut::<ScriptHost>()
        .stop("gm")
        .expect("running");
    h.steps(2);
    let (info, rules, _) = published(&h);
    assert_eq!(info.gamemode.as_str(), "", "back to the config's");
    assert_eq!(rules.rules.0.len(), 1, "only version is left");
}

#[test]
fn bad_arguments_name_the_function_and_the_argument() {
    let s = TempScripts::new("query_args");
    s.resource(
        "gm",
        r#"
        dlmp.on("player_connect", function(p)
            for _, f in ipairs({
                function() dlmp.set_rule("", "x") end,
                function() dlmp.set_rule("version", "9") end,
                function() dlmp.set_rule("k", string.rep("v", 129)) end,
                function() dlmp.set_game_mode_text(string.rep("m", 33)) end,
                function() p:set_score(2147483648) end,
            }) do
                local ok, err = pcall(f)
                dlmp.send_chat(ok and "ok" or tostring(err):match("(set_[%w_]+: [%w_]+)"))
            end
        end)
        "#,
    );
    let mut h = s.harness();
    let a = h.connect("alice");
    h.steps(2);
    assert_eq!(
        h.chat_lines(a),
        [
            "set_rule: key",
            "set_rule: the",
            "set_rule: value",
            "set_game_mode_text: text",
            "set_score: n"
        ]
    );
}
