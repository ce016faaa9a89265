// The board widget's view (mockgo/board_widget/widget.py): shows the SVG that
// Python draws and the state beside it, and sends every click to Python as
// a message. No game logic here: Python decides what a click means.

function button(label, title, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.title = title;
  b.className = "mg-button";
  b.addEventListener("click", onClick);
  return b;
}

function toggle(model, trait, label) {
  const wrap = document.createElement("label");
  wrap.className = "mg-toggle";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.dataset.trait = trait;
  box.checked = model.get(trait);
  box.addEventListener("change", () => {
    model.set(trait, box.checked);
    model.save_changes();
  });
  model.on(`change:${trait}`, () => { box.checked = model.get(trait); });
  wrap.append(box, " " + label);
  return wrap;
}

function render({ model, el }) {
  const send = (content) => model.send(content);
  const root = document.createElement("div");
  root.className = "mockgo-board-widget";
  root.tabIndex = 0;  // arrow keys step through a record

  const toolbar = document.createElement("div");
  toolbar.className = "mg-toolbar";
  const play = [
    button("Pass", "pass", () => send({ action: "pass" })),
    button("Undo", "take back your last move and the answer", () => send({ action: "undo" })),
    button("Resign", "give up this game", () => send({ action: "resign" })),
    button("New game", "start again", () => send({ action: "new" })),
  ];
  const review = [
    button("⏮", "start", () => send({ action: "first" })),
    button("◀", "back one move", () => send({ action: "back" })),
    button("▶", "forward one move (main line)", () => send({ action: "forward", variation: 0 })),
    button("⏭", "end of the line", () => send({ action: "last" })),
  ];
  const save = button("Save SGF", "save the game as SGF", () => send({ action: "save" }));
  save.classList.add("mg-save");
  const toggles = document.createElement("span");
  toggles.className = "mg-toggles";
  toggles.append(toggle(model, "show_policy", "policy"), toggle(model, "show_search", "search"),
                 toggle(model, "show_graph", "win-rate graph"));

  const main = document.createElement("div");
  main.className = "mg-main";
  const boardArea = document.createElement("div");
  boardArea.className = "mg-board-area";
  const side = document.createElement("div");
  side.className = "mg-side";
  const status = document.createElement("div");
  status.className = "mg-status";
  const message = document.createElement("div");
  message.className = "mg-message";
  const comment = document.createElement("pre");
  comment.className = "mg-comment";
  const variations = document.createElement("div");
  variations.className = "mg-variations";
  const graph = document.createElement("div");
  graph.className = "mg-graph-area";
  side.append(status, message, variations, comment, graph);
  main.append(boardArea, side);
  root.append(toolbar, main);
  el.append(root);

  boardArea.addEventListener("click", (event) => {
    const hit = event.target.closest("[data-point]");
    if (hit) send({ action: "play", point: Number(hit.dataset.point) });
  });
  graph.addEventListener("click", (event) => {
    const hit = event.target.closest("[data-move]");
    if (hit) send({ action: "go_to", move: Number(hit.dataset.move) });
  });
  root.addEventListener("keydown", (event) => {
    const keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" };
    if (keys[event.key] && model.get("info").mode === "review") {
      send({ action: keys[event.key], variation: 0 });
      event.preventDefault();
    }
  });

  function update() {
    const info = model.get("info") || {};
    const busy = model.get("busy");
    toolbar.replaceChildren(...(info.mode === "play" ? play : review), save, toggles);
    for (const b of play) b.disabled = busy || (info.over && b.textContent !== "New game");
    play[1].disabled = busy || !info.can_undo;
    boardArea.innerHTML = model.get("board_svg");
    boardArea.classList.toggle("mg-busy", busy);
    const turn = info.result ? `result ${info.result}` : `${info.to_play} to play`;
    const captures = info.captures || { black: 0, white: 0 };
    status.replaceChildren(...[
      `● ${info.black} (black)   ○ ${info.white} (white)`,
      `move ${info.move_number} · ${turn} · komi ${info.komi}`,
      `captured by black ${captures.black}, by white ${captures.white}`,
      ...(info.evaluation === null || info.evaluation === undefined ? [] :
          [`the network: black wins ${Math.round(100 * info.evaluation)}%`]),
    ].map((text) => {
      const line = document.createElement("div");
      line.textContent = text;
      return line;
    }));
    message.textContent = busy ? `${info.message}` : info.message || "";
    message.classList.toggle("mg-thinking", busy);
    comment.textContent = info.comment || "";
    comment.style.display = info.comment ? "" : "none";
    variations.replaceChildren();
    const [index, count] = info.sibling || [0, 1];
    if (info.mode === "review" && count > 1) {
      const line = document.createElement("div");
      line.textContent = `variation ${index + 1} of ${count}: `;
      for (let k = 0; k < count; k++) {
        if (k === index) continue;
        line.append(button(`${k + 1}`, `switch to variation ${k + 1}`,
                           () => send({ action: "sibling", index: k })));
      }
      variations.append(line);
    }
    if (info.mode === "review" && (info.variations || []).length > 1) {
      const line = document.createElement("div");
      line.textContent = "next: ";
      for (const [k, label, text] of info.variations) {
        const b = button(label, text || `variation ${k + 1}`,
                         () => send({ action: "forward", variation: k }));
        if (k === 0) b.classList.add("mg-main-line");
        line.append(b);
      }
      variations.append(line);
    }
    graph.innerHTML = model.get("graph_svg");
    for (const box of toggles.querySelectorAll("input")) {
      const available = { show_policy: info.has_policy, show_search: info.has_search,
                          show_graph: info.has_graph }[box.dataset.trait];
      box.parentElement.classList.toggle("mg-unavailable", !available);
      box.parentElement.title = available ? "" : "nothing to show: no network or search";
    }
  }

  for (const name of ["board_svg", "graph_svg", "info", "busy"]) {
    model.on(`change:${name}`, update);
  }
  update();
  return () => {
    for (const name of ["board_svg", "graph_svg", "info", "busy"]) {
      model.off(`change:${name}`, update);
    }
  };
}

export default { render };
