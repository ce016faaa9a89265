"""The board widget's view: an anywidget that shows a
:class:`~mockgo.board_widget.session.GameSession` in JupyterLab and sends the
learner's clicks back to it.

The view is thin. Python draws the board and the graph as SVG
(:mod:`mockgo.board_widget.svg`) and sends them with the state (``board_svg``,
``graph_svg``, ``info``); the JavaScript (``board_widget.js``, run by
anywidget: no JupyterLab extension to build) shows them, its buttons and
the overlay switches, and sends each click as a message (``{"action":
"play", "point": 40}``, ``{"action": "undo"}``...) that :meth:`BoardWidget.act`
carries out on the session.

**The engine's thinking does not freeze the page.** A click is played at
once and the new position sent; the engine's answer is then computed in a
background thread (``busy`` is set meanwhile, and the view says "thinking"
and refuses clicks), which sets the new state when it is done. The kernel
answers the comm message at once, so the browser, the other widgets and
the other cells keep working while the engine searches; ipykernel sends the
state from that thread through its I/O thread, as it does for any widget
updated from a thread. Overlays that need a network (the policy heatmap,
the value graph) are computed in the same thread. :meth:`BoardWidget.wait`
waits for the thread (tests, a script).

In a notebook run headless (nbconvert, CI) nothing draws the widget, so its
display data also carries the board as ``image/svg+xml`` (with the overlays
that are on): the executed notebook keeps a picture.
"""

import pathlib
import threading

import anywidget
import traitlets

from mockgo.board_widget.svg import board_svg, graph_svg

__all__ = ["BoardWidget"]

_HERE = pathlib.Path(__file__).parent


class BoardWidget(anywidget.AnyWidget):
    """A Go board in a notebook: ``BoardWidget(GameSession(...))``, or
    :func:`mockgo.board_widget.play` and :func:`mockgo.board_widget.review`.

    ``show_policy``, ``show_search``, ``show_graph``: the overlays (the view
    has a switch for each; set them from Python too).
    """

    _esm = _HERE / "board_widget.js"
    _css = _HERE / "board_widget.css"

    board_svg = traitlets.Unicode("").tag(sync=True)
    graph_svg = traitlets.Unicode("").tag(sync=True)
    info = traitlets.Dict({}).tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    show_policy = traitlets.Bool(False).tag(sync=True)
    show_search = traitlets.Bool(True).tag(sync=True)
    show_graph = traitlets.Bool(False).tag(sync=True)

    def __init__(self, session, **overlays):
        super().__init__(**overlays)
        self.session = session
        self._lock = threading.Lock()
        self._thread = None
        self.errors = []  # what went wrong in the thread, for a test to see
        self.on_msg(self._on_message)
        self.observe(self._on_overlay, names=["show_policy", "show_search", "show_graph"])
        self._refresh(compute=False)
        self._after_action()

    # --------------------------------------------------------- actions

    def _on_message(self, _widget, content, _buffers):
        self.act(content.get("action"), **{k: v for k, v in content.items() if k != "action"})

    def act(self, action, **arguments):
        """Carry out one action of the view on the session (as if clicked):
        ``play`` (``point``), ``pass``, ``undo``, ``resign``, ``new``,
        ``save``, ``first``, ``back``, ``forward`` (``variation``), ``last``,
        ``go_to`` (``move``), ``sibling`` (``index``). Refused, with a
        message, while the engine thinks."""
        session = self.session
        actions = {
            "play": lambda: session.click(int(arguments["point"])),
            "pass": session.pass_turn, "undo": session.undo, "resign": session.resign,
            "new": session.new_game, "save": session.save, "first": session.to_start,
            "back": session.back, "last": session.to_end,
            "forward": lambda: session.forward(int(arguments.get("variation", 0))),
            "go_to": lambda: session.go_to(int(arguments["move"])),
            "sibling": lambda: session.choose_variation(int(arguments["index"])),
        }
        if action not in actions:
            session.message = f"unknown action {action!r}"
        # The engine's move is refused; the overlays' numbers take a moment: wait.
        elif self.busy or not self._lock.acquire(timeout=30):
            # Only the message changes: the thread owns the session until it is done.
            who = session.engine.name if session.engine else "the analysis"
            self.info = dict(self.info, message=f"{who} is thinking: wait for it")
            return
        else:
            try:
                actions[action]()
            except Exception as error:  # shown to the learner, not a dead widget
                session.message = f"{action} failed: {error}"
            finally:
                self._lock.release()
        self._refresh(compute=False)
        self._after_action()

    def _after_action(self):
        """Start the thread that plays the engine's move (if it is its turn)
        and computes the overlays that need a network."""
        analyst = self.session.analyst
        needs_network = analyst is not None and (
            (self.show_policy and analyst.policy_net is not None)
            or analyst.value_net is not None)  # the evaluation of every position
        if not self._lock.acquire(blocking=False):
            return  # the running thread draws the state when it ends
        if not self.session.engine_to_move() and not needs_network:
            try:
                self._refresh(compute=True)
            finally:
                self._lock.release()
            return
        self.busy = self.session.engine_to_move()
        if self.busy:
            self.session.message = f"{self.session.engine.name} is thinking…"
            self._refresh(compute=False)
        self._thread = threading.Thread(target=self._work, name="mockgo-board-widget",
                                        daemon=True)
        self._thread.start()

    def _work(self):
        try:
            if self.session.engine_to_move():
                self.session.engine_move()
            self._refresh(compute=True)
        except Exception as error:
            self.errors.append(error)
            self.session.message = f"the engine failed: {error!r}"
        finally:
            self.busy = False
            self._lock.release()
            self._refresh(compute=False)

    def wait(self, timeout=None):
        """Wait for the engine's move (and the overlays) to be done."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not (thread is not None and thread.is_alive())

    def _on_overlay(self, change):
        self._after_action()

    # --------------------------------------------------------- drawing

    def _overlays(self, compute):
        """The heatmap, search and graph values to draw; with ``compute``
        False, only what needs no network call (cached or read)."""
        session = self.session
        heatmap = search = rates = None
        if compute:
            session.evaluation()  # shown beside the board (info)
        if self.show_policy and (compute or session.node in session._policies):
            heatmap = session.policy()
        if self.show_search:
            search = session.search()
        if self.show_graph and (compute or session.analyst is None
                                or session.analyst.value_net is None):
            rates = session.win_rates()
        return heatmap, search, rates

    def _refresh(self, compute):
        session = self.session
        heatmap, search, rates = self._overlays(compute)
        board = session.board
        self.board_svg = board_svg(board, heatmap=heatmap, search=search,
                                   clickable=not session.over)
        if rates is not None:
            self.graph_svg = graph_svg(rates, current=board.move_number)
        elif not self.show_graph:
            self.graph_svg = ""
        self.info = dict(session.info(), busy=self.busy)

    def picture(self):
        """The board (and the graph, if it is shown) as one SVG: what a
        notebook keeps when nothing draws the widget."""
        session = self.session
        if not self._lock.acquire(timeout=60):  # the thread is done with the session
            raise TimeoutError("the board widget's thread is still busy after 60 s")
        try:
            heatmap, search, rates = self._overlays(compute=True)
        finally:
            self._lock.release()
        board = board_svg(session.board, heatmap=heatmap, search=search, clickable=False,
                          title=self._caption())
        if rates is None:
            return board
        graph = graph_svg(rates, current=session.board.move_number)
        width = int(board.split('width="', 1)[1].split('"', 1)[0])
        height = int(board.split('height="', 1)[1].split('"', 1)[0])
        graph_width = int(graph.split('width="', 1)[1].split('"', 1)[0])
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width + graph_width + 12}" '
                f'height="{height}">{board}<g transform="translate({width + 12},0)">{graph}'
                f'</g></svg>')

    def _caption(self):
        info = self.session.info()
        text = f"{info['black']} (black) against {info['white']} (white), " \
               f"move {info['move_number']}"
        return text + (f", {info['result']}" if info["result"] else "")

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        if data is None:
            return None
        data = dict(data)
        data["image/svg+xml"] = self.picture()
        data["text/plain"] = f"<BoardWidget: {self._caption()}>"
        return data, metadata

    def close(self):
        self.wait(5)
        self.session.close()
        super().close()
