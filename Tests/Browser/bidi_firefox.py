"""Headless Firefox ESR driven over WebDriver BiDi, with the part of Selenium's API the browser
suite uses (no geckodriver is packaged for Debian; Firefox speaks BiDi itself).

    driver = Firefox(downloads="/tmp/downloads")       # starts firefox-esr on a fresh profile
    driver.get(url); button = driver.find_element(By.ID, "play"); button.click()
    driver.execute_script("return arguments[0].id", button)   # elements go both ways
    driver.quit()                                      # ends Firefox and removes the profile

The one dependency is PyPI `websockets`. Clicks and keys are real input (input.performActions),
a file input takes files through input.setFiles, the console (log.entryAdded) is kept for
get_log("browser"). BiDi has no computed label: accessible_name is a simplified accname
(aria-labelledby, aria-label, labels, content with CSS ::before/::after, title) computed in the
page. Errors are WebDriverError (with .msg, as Selenium's).
"""

import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading

from websockets.sync.client import connect


class WebDriverError(Exception):
    def __init__(self, msg):
        super().__init__(msg)
        self.msg = msg


class NoSuchElementError(WebDriverError):
    pass


class By:  # the values are Selenium's, so either By works
    ID = "id"
    CSS_SELECTOR = "css selector"
    TAG_NAME = "tag name"


class Keys:  # the WebDriver key code points, as Selenium's Keys
    SHIFT = "\ue008"
    SPACE = "\ue00d"
    ARROW_LEFT = "\ue012"
    ARROW_RIGHT = "\ue014"


PREFS = {
    "media.autoplay.default": 0,                    # allow audible autoplay
    "media.autoplay.blocking_policy": 0,
    "media.autoplay.block-webaudio": False,
    "media.navigator.streams.fake": True,           # getUserMedia: a fake camera and microphone...
    "media.navigator.permission.disabled": True,    # ...allowed without asking, at 320x240: on a busy
    "media.navigator.video.default_width": 320,     # machine 640x480 recorded at ~11 fps (once 1 frame
    "media.navigator.video.default_height": 240,    # in 3 s), 320x240 at 26-30 fps
    "browser.download.folderList": 2,               # downloads go to browser.download.dir, unasked
    "browser.download.useDownloadDir": True,
    "browser.download.always_ask_before_handling_new_types": False,
    "browser.download.start_downloads_in_tmp_dir": False,
    "browser.download.alwaysOpenPanel": False,
    "browser.download.manager.showWhenStarting": False,
    "browser.helperApps.neverAsk.saveToDisk": "audio/wav,audio/x-wav,audio/wave,audio/flac,audio/mpeg,video/mp4,"
                                              "application/octet-stream",
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "browser.aboutwelcome.enabled": False,
}

# Script helpers run in the page: `function (element, ...)`.
ACCESSIBLE_NAME = """function (e) {  // a simplified accname: aria-labelledby, aria-label, labels, content, title
    const text = (n) => (n.innerText ?? n.textContent ?? '').trim();
    const ids = e.getAttribute('aria-labelledby');
    if (ids) return ids.split(/\\s+/).map((id) => document.getElementById(id)).filter(Boolean).map(text).join(' ');
    if ((e.getAttribute('aria-label') || '').trim()) return e.getAttribute('aria-label').trim();
    if (e.labels && e.labels.length) return [...e.labels].map(text).join(' ');
    if (/^(BUTTON|A|SUMMARY|OPTION)$/.test(e.tagName) || ['button', 'submit', 'reset'].includes(e.type)) {
        const css = (p) => (/^"(.*)"$/.exec(getComputedStyle(e, p).content) || ['', ''])[1];  // ::before, ::after
        const own = text(e) || [...e.querySelectorAll('img[alt]')].map((i) => i.alt).join(' ') || e.value || '';
        if ((css('::before') + own + css('::after')).trim()) return css('::before') + own + css('::after');
    }
    return (e.getAttribute('title') || e.getAttribute('placeholder') || e.getAttribute('alt') || '').trim();
}"""
ATTRIBUTE = """function (e, n) {  // as Selenium: href/src resolved, value the current one, else the attribute
    if ((n === 'href' || n === 'src') && e.hasAttribute(n)) return e[n] || e.getAttribute(n);
    if (n === 'value' && 'value' in e) return String(e.value);
    if (['checked', 'selected', 'disabled'].includes(n)) return e[n] ? 'true' : null;
    if (e.hasAttribute(n)) return e.getAttribute(n);
    const p = e[n];
    return p === undefined || p === null || p === '' || typeof p === 'object' || typeof p === 'function' ? null : String(p);
}"""
DISPLAYED = """function (e) {
    if (!e.isConnected || !e.checkVisibility({visibilityProperty: true, opacityProperty: true})) return false;
    return [...e.getClientRects()].some((r) => r.width > 0 && r.height > 0);
}"""
FIND = """function (root, using, value) {
    const selector = using === 'id' ? '#' + CSS.escape(value) : value;
    return [...(root || document).querySelectorAll(selector)];
}"""


class Firefox:
    def __init__(self, downloads=None, width=1280, height=800, binary="firefox-esr", prefs=None):
        # The profile, and Firefox's own folder (crash reports, pings) instead of ~/.config/mozilla.
        self.home = tempfile.mkdtemp(prefix="reverse-audio-firefox.")
        self.profile = os.path.join(self.home, "profile")
        os.mkdir(self.profile)
        settings = dict(PREFS, **(prefs or {}))
        if downloads:
            settings["browser.download.dir"] = os.path.abspath(downloads)
        with open(os.path.join(self.profile, "user.js"), "w") as file:
            for name, value in settings.items():
                file.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
        self.output, self.url, self.listening = [], None, threading.Event()
        self.process = subprocess.Popen(
            [binary, "--headless", "--no-remote", "--profile", self.profile, "--remote-debugging-port=0",
             f"--width={width}", f"--height={height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
            env=dict(os.environ, MOZ_HEADLESS="1", XDG_CONFIG_HOME=os.path.join(self.home, "config")))
        threading.Thread(target=self._drain, daemon=True).start()
        if not self.listening.wait(60) or not self.url:
            self.quit()
            raise WebDriverError("Firefox did not listen for WebDriver BiDi: " + " | ".join(self.output[-10:]))
        self.socket = connect(self.url, max_size=None, open_timeout=30, ping_interval=None)
        self.next_id, self.pending, self.logs, self.closed = 0, {}, [], None
        self.condition = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.command("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}})
        self.context = self.command("browsingContext.getTree", {})["contexts"][0]["context"]
        self.command("session.subscribe", {"events": ["log.entryAdded"]})
        self.script_timeout = 30.0
        self.set_window_size(width, height)

    # ---- the protocol ------------------------------------------------------------------

    def _drain(self):  # Firefox's output: the line with the BiDi address, then kept for errors
        for line in self.process.stdout:
            self.output = self.output[-200:] + [line.rstrip("\n")]
            found = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
            if found and not self.url:
                self.url = found.group(1).rstrip("/") + "/session"
                self.listening.set()
        self.listening.set()  # it exited

    def _read(self):
        try:
            for message in self.socket:
                message = json.loads(message)
                with self.condition:
                    if "id" in message:
                        self.pending[message["id"]] = message
                    elif message.get("method") == "log.entryAdded":
                        self.logs.append(message["params"])
                    self.condition.notify_all()
        except Exception as error:  # the connection ended: every waiting command fails
            self.closed = error
        with self.condition:
            self.closed = self.closed or "the connection closed"
            self.condition.notify_all()

    def command(self, method, params, timeout=120.0):
        with self.condition:
            self.next_id += 1
            number = self.next_id
        self.socket.send(json.dumps({"id": number, "method": method, "params": params}))
        with self.condition:
            if not self.condition.wait_for(lambda: number in self.pending or self.closed, timeout):
                raise WebDriverError(f"{method}: no answer from Firefox in {timeout:g} s")
            if number not in self.pending:
                raise WebDriverError(f"{method}: Firefox went away ({self.closed}): " + " | ".join(self.output[-5:]))
            message = self.pending.pop(number)
        if message.get("type") == "error":
            raise WebDriverError(f"{method}: {message.get('error')}: {message.get('message')}")
        return message["result"]

    def serialize(self, value):
        if isinstance(value, Element):
            return {"sharedId": value.id}
        if value is None:
            return {"type": "null"}
        if isinstance(value, bool):
            return {"type": "boolean", "value": value}
        if isinstance(value, (int, float)):
            special = {float("inf"): "Infinity", float("-inf"): "-Infinity"}.get(value)
            return {"type": "number", "value": special or ("NaN" if value != value else value)}
        if isinstance(value, str):
            return {"type": "string", "value": value}
        if isinstance(value, (list, tuple)):
            return {"type": "array", "value": [self.serialize(item) for item in value]}
        if isinstance(value, dict):
            return {"type": "object", "value": [[str(key), self.serialize(item)] for key, item in value.items()]}
        raise TypeError(f"cannot pass {type(value).__name__} to a script")

    def deserialize(self, remote):
        kind, value = remote.get("type"), remote.get("value")
        if kind in ("undefined", "null"):
            return None
        if kind == "number" and isinstance(value, str):
            return {"NaN": float("nan"), "-0": -0.0, "Infinity": float("inf"), "-Infinity": float("-inf")}[value]
        if kind in ("string", "number", "boolean", "bigint"):
            return int(value) if kind == "bigint" else value
        if kind in ("array", "set", "nodelist", "htmlcollection"):
            return [self.deserialize(item) for item in value or []]
        if kind in ("object", "map"):
            return {(key if isinstance(key, str) else str(self.deserialize(key))): self.deserialize(item)
                    for key, item in value or []}
        if kind == "node":
            return Element(self, remote["sharedId"], (value or {}).get("localName"))
        return value

    def call(self, declaration, arguments=(), await_promise=False, timeout=120.0):
        result = self.command("script.callFunction", {
            "functionDeclaration": declaration, "arguments": [self.serialize(a) for a in arguments],
            "target": {"context": self.context}, "awaitPromise": await_promise, "userActivation": True,
            "resultOwnership": "none", "serializationOptions": {"maxDomDepth": 0}}, timeout)
        if result["type"] == "exception":
            details = result["exceptionDetails"]
            raise WebDriverError(f"javascript error: {details.get('text')}")
        return self.deserialize(result["result"])

    def perform(self, actions):
        self.command("input.performActions", {"context": self.context, "actions": actions})

    # ---- Selenium's WebDriver ----------------------------------------------------------

    def get(self, url):
        self.command("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def execute_script(self, script, *arguments):
        return self.call(f"function () {{\n{script}\n}}", arguments)

    def execute_async_script(self, script, *arguments):
        timeout = self.script_timeout
        wrapper = f"""function (...args) {{
            return new Promise((resolve, reject) => {{
                setTimeout(() => reject(new Error('script timeout: no callback in {timeout:g} s')), {timeout * 1000:.0f});
                args.push(resolve);
                (function () {{\n{script}\n}}).apply(this, args);
            }});
        }}"""
        return self.call(wrapper, arguments, await_promise=True, timeout=timeout + 30)

    def set_script_timeout(self, seconds):
        self.script_timeout = float(seconds)

    def find_elements(self, using, value, root=None):
        return self.call(FIND, [root, using, value])

    def find_element(self, using, value, root=None):
        found = self.find_elements(using, value, root)
        if not found:
            raise NoSuchElementError(f"no such element: {using} {value!r}")
        return found[0]

    def set_window_size(self, width, height):
        self.command("browsingContext.setViewport", {"context": self.context, "devicePixelRatio": 1,
                                                     "viewport": {"width": int(width), "height": int(height)}})

    def get_window_size(self):  # headless: the window is its viewport
        return self.execute_script("return {width: innerWidth, height: innerHeight}")

    def save_screenshot(self, path):
        data = self.command("browsingContext.captureScreenshot", {"context": self.context})["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))
        return True

    def get_log(self, kind="browser"):
        """The console's entries since the last call, as Selenium's: level SEVERE for errors."""
        self.command("script.evaluate", {"expression": "0", "target": {"context": self.context}, "awaitPromise": False})
        with self.condition:
            entries, self.logs = self.logs, []
        levels = {"error": "SEVERE", "warn": "WARNING", "info": "INFO", "debug": "DEBUG"}
        return [{"level": levels.get(entry.get("level"), "INFO"), "message": entry.get("text") or "",
                 "source": entry.get("type"), "timestamp": entry.get("timestamp")} for entry in entries]

    def quit(self):
        try:
            if getattr(self, "socket", None):
                try:
                    self.command("session.end", {}, timeout=5)
                except WebDriverError:
                    pass
                self.socket.close()
        finally:
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            shutil.rmtree(self.home, ignore_errors=True)


class Element:
    def __init__(self, driver, shared_id, tag=None):
        self.driver, self.id, self.tag_name = driver, shared_id, (tag or "").lower()

    def _js(self, declaration, *arguments):
        return self.driver.call(declaration, [self, *arguments])

    def find_elements(self, using, value):
        return self.driver.find_elements(using, value, self)

    def find_element(self, using, value):
        return self.driver.find_element(using, value, self)

    @property
    def text(self):
        return self._js("function (e) { return (e.innerText ?? e.textContent ?? '').trim(); }")

    def get_attribute(self, name):
        return self._js(ATTRIBUTE, name)

    def get_property(self, name):
        return self._js("function (e, n) { return e[n]; }", name)

    def is_displayed(self):
        return self._js(DISPLAYED)

    def is_enabled(self):
        return self._js("function (e) { return !e.matches(':disabled'); }")

    def is_selected(self):
        return self._js("function (e) { return !!(e.checked || e.selected); }")

    @property
    def accessible_name(self):  # BiDi has no computed label: a simplified accname, in the page
        return " ".join((self._js(ACCESSIBLE_NAME) or "").split())

    @property
    def rect(self):
        return self._js("function (e) { const r = e.getBoundingClientRect();"
                        " return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }")

    @property
    def location(self):
        rect = self.rect
        return {"x": round(rect["x"]), "y": round(rect["y"])}

    @property
    def size(self):
        rect = self.rect
        return {"width": round(rect["width"]), "height": round(rect["height"])}

    def _into_view(self):
        self._js("function (e) { const r = e.getBoundingClientRect();"
                 " if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth)"
                 "  e.scrollIntoView({block: 'center', inline: 'center'}); }")

    def click(self):
        self._into_view()
        ActionChains(self.driver).move_to_element(self).click().perform()

    def send_keys(self, *keys):
        text = "".join(keys)
        if self._js("function (e) { return e.localName === 'input' && e.type === 'file'; }"):
            self.driver.command("input.setFiles", {"context": self.driver.context, "element": {"sharedId": self.id},
                                                   "files": [os.path.abspath(path) for path in text.split("\n")]})
            return
        self._into_view()
        self._js("function (e) { if (document.activeElement !== e) e.focus(); }")
        ActionChains(self.driver).send_keys(text).perform()


class ActionChains:
    """Selenium's ActionChains for one key source and one mouse, run tick by tick in one call."""

    def __init__(self, driver):
        self.driver, self.ticks = driver, []

    def _add(self, source, action):
        self.ticks.append((source, action))
        return self

    def key_down(self, key):
        return self._add("key", {"type": "keyDown", "value": key})

    def key_up(self, key):
        return self._add("key", {"type": "keyUp", "value": key})

    def send_keys(self, *keys):
        for key in "".join(keys):
            self.key_down(key).key_up(key)
        return self

    def move_to_element_with_offset(self, element, x, y):  # the offset from the element's centre
        return self._add("mouse", {"type": "pointerMove", "x": int(x), "y": int(y), "duration": 0,
                                   "origin": {"type": "element", "element": {"sharedId": element.id}}})

    def move_to_element(self, element):
        return self.move_to_element_with_offset(element, 0, 0)

    def move_by_offset(self, x, y):
        return self._add("mouse", {"type": "pointerMove", "x": int(x), "y": int(y), "duration": 0, "origin": "pointer"})

    def click_and_hold(self, element=None):
        if element is not None:
            self.move_to_element(element)
        return self._add("mouse", {"type": "pointerDown", "button": 0})

    def release(self):
        return self._add("mouse", {"type": "pointerUp", "button": 0})

    def click(self, element=None):
        return self.click_and_hold(element).release()

    def perform(self):
        sources = {"key": {"type": "key", "id": "keyboard", "actions": []},
                   "mouse": {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": []}}
        for source, action in self.ticks:
            for name, actions in sources.items():
                actions["actions"].append(action if name == source else {"type": "pause", "duration": 0})
        self.driver.perform(list(sources.values()))
        self.ticks = []
