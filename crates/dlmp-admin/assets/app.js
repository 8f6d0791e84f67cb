// The admin panel's live parts (ADR 0100): the dashboard's numbers and plot, the console
// and the chat log, and the map, each kept current from a server-sent event stream. Every
// text from the server goes into the page as text (textContent), never as markup.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const csrf = () => {
    const m = document.querySelector('meta[name="csrf"]');
    return m ? m.content : "";
  };

  // A stream that reconnects after an error (the server drops a slow reader).
  function listen(url, event, handle) {
    let source = null;
    const open = () => {
      source = new EventSource(url);
      source.addEventListener(event, (e) => {
        try {
          handle(JSON.parse(e.data));
        } catch (err) {
          console.error(err);
        }
      });
      source.onerror = () => {
        source.close();
        setTimeout(open, 2000);
      };
    };
    open();
  }

  // The dashboard.
  function points(samples, value, top) {
    const start = 900 - samples.length;
    let out = "";
    samples.forEach((s, i) => {
      const v = value(s);
      if (v !== null && v !== undefined) {
        const y = 200 - Math.min(v / top, 1) * 200;
        out += (start + i).toFixed(0) + "," + y.toFixed(1) + " ";
      }
    });
    return out;
  }

  function dashboard(h) {
    const last = h.history.length ? h.history[h.history.length - 1] : null;
    const set = (id, text) => {
      const el = $(id);
      if (el) el.textContent = text;
    };
    set("players", h.players);
    set("din", h.datagrams_in);
    set("dout", h.datagrams_out);
    set("errors", h.script_errors);
    set("dbq", h.db_queue);
    set("uptime", h.uptime_secs);
    if (last) {
      set("p50", last.tick_p50_ms.toFixed(2));
      set("p99", last.tick_p99_ms.toFixed(2));
      set("cpu", last.cpu_percent === null ? "-" : last.cpu_percent.toFixed(0) + " %");
    }
    const plot = $("plot");
    if (!plot) return;
    const top = Math.max(1, ...h.history.map((s) => s.tick_p99_ms));
    plot.querySelector(".p50").setAttribute("points", points(h.history, (s) => s.tick_p50_ms, top));
    plot.querySelector(".p99").setAttribute("points", points(h.history, (s) => s.tick_p99_ms, top));
    plot.querySelector(".cpu").setAttribute("points", points(h.history, (s) => s.cpu_percent, 100));
    set("top", top.toFixed(1));
  }

  // The console and the chat log.
  const KEEP_LINES = 2000;

  function logView(log) {
    const filter = $("filter");
    const level = $("level");
    const shown = (line) => {
      const text = (filter ? filter.value : "").toLowerCase();
      const lvl = level ? level.value : "";
      return (!lvl || line.dataset.level === lvl) &&
        (!text || line.textContent.toLowerCase().includes(text));
    };
    const refilter = () => {
      for (const line of log.children) line.hidden = !shown(line);
    };
    if (filter) filter.addEventListener("input", refilter);
    if (level) level.addEventListener("change", refilter);
    listen(log.dataset.stream, "lines", (lines) => {
      const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
      for (const l of lines) {
        const row = document.createElement("div");
        row.className = "line " + l.level.toLowerCase();
        row.dataset.level = l.level;
        const when = new Date(l.at_ms).toISOString().slice(11, 19);
        row.textContent = when + " " + l.level.padEnd(5) + " " + l.text;
        row.hidden = !shown(row);
        log.appendChild(row);
      }
      while (log.children.length > KEEP_LINES) log.removeChild(log.firstChild);
      if (atBottom) log.scrollTop = log.scrollHeight;
    });
  }

  function commandLine(form) {
    const answer = $("answer");
    const line = $("line");
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = new URLSearchParams(new FormData(form));
      try {
        const res = await fetch(form.action, {
          method: "POST",
          body,
          credentials: "same-origin",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
        });
        if (!res.ok) {
          answer.textContent = "> " + line.value + "\n" + (await res.text());
          return;
        }
        const json = await res.json();
        answer.textContent = "> " + line.value + "\n" + json.lines.join("\n");
        line.value = "";
      } catch (err) {
        answer.textContent = "the server did not answer: " + err;
      }
    });
  }

  // The map: world x east, y north; the SVG's y grows downwards, so y is negated.
  function map(svg) {
    const marks = $("marks");
    const world = $("world");
    const counts = $("counts");
    let latest = null;
    const draw = () => {
      if (!latest) return;
      const vw = Number(world.value);
      while (marks.firstChild) marks.removeChild(marks.firstChild);
      let players = 0;
      let vehicles = 0;
      const mark = (m, kind) => {
        if (m.world !== vw) return;
        const g = document.createElementNS(SVG, "g");
        g.setAttribute("class", "mark " + kind);
        g.setAttribute("id", kind + "-mark-" + m.id);
        g.dataset.x = m.x;
        g.dataset.y = m.y;
        g.dataset.name = m.name;
        const shape = document.createElementNS(SVG, kind === "player" ? "circle" : "rect");
        if (kind === "player") {
          shape.setAttribute("cx", m.x);
          shape.setAttribute("cy", -m.y);
          shape.setAttribute("r", 45);
        } else {
          shape.setAttribute("x", m.x - 35);
          shape.setAttribute("y", -m.y - 35);
          shape.setAttribute("width", 70);
          shape.setAttribute("height", 70);
        }
        const title = document.createElementNS(SVG, "title");
        title.textContent = kind === "player" ? m.name + " (" + m.id + ")" : m.name + " #" + m.id;
        shape.appendChild(title);
        g.appendChild(shape);
        if (kind === "player") {
          g.addEventListener("click", () => {
            window.location.href = "/players#player-" + m.id;
          });
        }
        marks.appendChild(g);
        if (kind === "player") players++;
        else vehicles++;
      };
      latest.vehicles.forEach((v) => mark(v, "vehicle"));
      latest.players.forEach((p) => mark(p, "player"));
      counts.textContent = players + " players, " + vehicles + " vehicles in world " + vw;
    };
    world.addEventListener("change", draw);
    listen("/events/map", "snapshot", (snapshot) => {
      latest = snapshot;
      const known = new Set([...world.options].map((o) => Number(o.value)));
      for (const m of [...snapshot.players, ...snapshot.vehicles]) {
        if (!known.has(m.world)) {
          known.add(m.world);
          const o = document.createElement("option");
          o.value = m.world;
          o.textContent = "world " + m.world;
          world.appendChild(o);
        }
      }
      draw();
      svg.dataset.version = snapshot.version;
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    if ($("health")) listen("/events/dashboard", "snapshot", dashboard);
    const log = $("log");
    if (log) logView(log);
    const command = $("command");
    if (command) commandLine(command);
    const svg = $("map");
    if (svg) map(svg);
    // Every form posts its CSRF token; a form drawn after the page loaded gets it here.
    for (const form of document.querySelectorAll('form[method="post"]')) {
      if (!form.querySelector('input[name="csrf"]')) {
        const input = document.createElement("input");
        input.type = "hidden";
        input.name = "csrf";
        input.value = csrf();
        form.appendChild(input);
      }
    }
  });
})();
