"""A small client for the Go Text Protocol (GTP version 2).

It runs an external Go engine (GnuGo, or any program that speaks GTP on its
standard input and output) and drives it over pipes: to check mockgo's rules
against another program, and to play matches against it::

    with GTPEngine(gnugo_command(level=1)) as gnugo:
        gnugo.send_many(["boardsize 9", "play black E5"])
        reply = gnugo.send("genmove white")   # e.g. "D4"

GTP in brief: a command is one line, here preceded by a numeric id; the
engine answers ``=id text`` or ``?id message``, ends every answer with an
empty line (answers, like ``showboard``'s, may span lines but contain no
empty one), and answers in order, so :meth:`GTPEngine.send_many` can write
many commands at once and then read their answers, saving a round trip each.
"""

import os
import shlex
import shutil
import signal
import subprocess

# send_many writes at most this many bytes before it reads the answers: the
# engine can then always take all we write without us reading, so neither
# side waits on a full pipe (a Linux pipe holds 64 KiB).
_PIPELINE_BYTES = 16 * 1024


class GTPError(RuntimeError):
    """The engine answered a command with ``?`` (it failed or was refused)."""

    def __init__(self, command, message):
        super().__init__(f"GTP command {command!r} failed: {message}")
        self.command, self.message = command, message


class GTPEngineDied(RuntimeError):
    """The engine exited or closed its pipe, so no answer will come.
    ``status`` says how, without the command line: ``"exited with code 1"``,
    ``"was killed by signal 11 (SIGSEGV)"``, ``"closed its output"``."""

    def __init__(self, message, status=""):
        super().__init__(message)
        self.status = status


class GTPEngine:
    """An engine running as a child process, driven over pipes."""

    def __init__(self, command, name=None, stderr=subprocess.DEVNULL):
        self.command = list(command)
        self.name = name or os.path.basename(self.command[0])
        self._next_id = 1
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
            text=True, encoding="utf-8", bufsize=1)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return f"<GTPEngine {self.name}: {shlex.join(self.command)}>"

    def send(self, command):
        """Send one command; return the answer's text, or raise GTPError."""
        answer = self.send_many([command])[0]
        if isinstance(answer, GTPError):
            raise answer
        return answer

    def send_many(self, commands):
        """Send many commands at once and read all the answers: for each
        command, in order, its text or the GTPError it failed with."""
        answers, chunk, size = [], [], 0
        for command in [*commands, None]:
            if chunk and (command is None or size + len(command) > _PIPELINE_BYTES):
                answers += self._exchange(chunk)
                chunk, size = [], 0
            if command is not None:
                if "\n" in command or not command.strip():
                    raise ValueError(f"a GTP command is one non-empty line, got {command!r}")
                chunk.append(command)
                size += len(command) + 8  # and its id
        return answers

    def close(self, timeout=5.0):
        """Tell the engine to quit and close its input (an engine that
        ignores ``quit`` sees the end of its input); kill it if it has not
        exited within ``timeout`` seconds."""
        try:
            if self.process.poll() is None:
                self.process.stdin.write("quit\n")
            self.process.stdin.close()
        except (BrokenPipeError, ValueError):  # gone already, or closed before
            pass
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()

    # ------------------------------------------------------------ internals

    def _died(self, command):
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        if code is None:
            status = "closed its output"
        elif code < 0:  # a signal: a crash (SIGSEGV) or a kill
            status = f"was killed by signal {-code} ({_signal_name(-code)})"
        else:
            status = f"exited with code {code}"
        return GTPEngineDied(f"GTP engine {self.name} ({shlex.join(self.command)}) "
                             f"{status}; no answer to {command!r}", status)

    def _exchange(self, commands):
        """Write the commands in one go, then read their answers."""
        first_id = self._next_id
        self._next_id += len(commands)
        text = "".join(f"{first_id + k} {command}\n" for k, command in enumerate(commands))
        try:
            self.process.stdin.write(text)
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError):  # ValueError: the pipe is closed
            raise self._died(commands[0]) from None
        return [self._read_answer(first_id + k, command) for k, command in enumerate(commands)]

    def _read_answer(self, expected_id, command):
        """Read one answer: its text, or a GTPError if it starts with ``?``."""
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise self._died(command)
            line = line.rstrip("\r\n")
            if line.strip():
                lines.append(line)
            elif lines:  # the empty line that ends an answer
                break
        head, _, first = lines[0].partition(" ")
        if head[:1] not in ("=", "?") or head[1:] != str(expected_id):
            raise RuntimeError(f"GTP engine {self.name} answered {lines[0]!r} "
                               f"to command {expected_id} ({command!r})")
        lines[0] = first.strip()
        if len(lines) > 1 and not lines[0]:
            lines.pop(0)  # a multi-line answer that starts on the next line
        text = "\n".join(lines)
        return GTPError(command, text) if head[0] == "?" else text


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def find_gnugo():
    """The path of the GnuGo binary, or None if it is not installed.
    (Debian puts it in /usr/games, which is not on every PATH.)"""
    path = shutil.which("gnugo")
    if path is None and os.access("/usr/games/gnugo", os.X_OK):
        path = "/usr/games/gnugo"
    return path


def gnugo_command(level=0, seed=0, chinese_rules=True, positional_superko=True, extra=(),
                  binary=None):
    """The command line that runs GnuGo as a GTP engine (``binary``: the
    GnuGo program to run, by default the one find_gnugo finds)."""
    command = [binary or find_gnugo() or "gnugo", "--mode", "gtp", "--level", str(level),
               "--seed", str(seed)]
    if chinese_rules:
        command.append("--chinese-rules")
    if positional_superko:
        command.append("--positional-superko")
    return command + list(extra)
