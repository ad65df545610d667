/* SPDX-License-Identifier: MIT */
// Drives headless Chromium over the DevTools protocol (--remote-debugging-pipe: no npm package,
// no port) for the tests of the browser outputs (flame graph SVG, speedscope).
// usage: node browser.js URL STEP...
//   eval:JS   evaluate JS in the page, print {"step":i,"value":...}
//   click:JS  evaluate JS returning {x,y} (page coordinates), click the mouse there
//   wait:JS   evaluate JS until it is truthy (20 s at most), print its value
//   key:K     press the key K (e.g. "3")
//   shot:PNG  save a screenshot of the page to the file PNG
// Then {"requests":[...]}: every URL the page asked for besides itself (file, network, data);
// the last line is {"errors":[...]}: exceptions thrown and console errors of the page.
// Exit status 0 when every step ran, 1 otherwise (a protocol failure, a wait that timed out).
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [url, ...steps] = process.argv.slice(2);
// A private profile directory (0700), inside the test's scratch directory when there is one.
const profile = fs.mkdtempSync(path.join(process.env.TEST_TMP || os.tmpdir(), 'chromium-'));
const chrome = spawn(process.env.CHROMIUM || 'chromium',
    ['--headless=new', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader',
     '--enable-unsafe-swiftshader', '--remote-debugging-pipe', '--no-first-run',
     '--allow-file-access-from-files', '--window-size=1280,900', '--user-data-dir=' + profile,
     'about:blank'],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
const toChrome = chrome.stdio[3], fromChrome = chrome.stdio[4];
let nextId = 1, buf = '', sessionId = null;
const pending = new Map(), listeners = [], errors = [], requests = [];

fromChrome.on('data', (d) => {
    buf += d.toString('utf8');
    let i;
    while ((i = buf.indexOf('\0')) >= 0) {
        const msg = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (msg.id && pending.has(msg.id)) {
            const { resolve, reject } = pending.get(msg.id);
            pending.delete(msg.id);
            msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result);
        } else if (msg.method) {
            listeners.forEach((l) => l(msg));
        }
    }
});

function send(method, params = {}, session = sessionId) {
    const id = nextId++;
    const msg = { id, method, params };
    if (session)
        msg.sessionId = session;
    toChrome.write(JSON.stringify(msg) + '\0');
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

function once(method) {
    return new Promise((resolve) => {
        const l = (m) => {
            if (m.method === method) {
                listeners.splice(listeners.indexOf(l), 1);
                resolve(m.params);
            }
        };
        listeners.push(l);
    });
}

listeners.push((m) => {
    if (m.method === 'Runtime.exceptionThrown')
        errors.push('exception: ' + (m.params.exceptionDetails.exception ?
            m.params.exceptionDetails.exception.description : m.params.exceptionDetails.text));
    else if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error')
        errors.push('console.error: ' + m.params.args.map((a) => a.value || a.description).join(' '));
    else if (m.method === 'Network.requestWillBeSent' &&
             m.params.request.url.split('#')[0] !== url.split('#')[0])
        requests.push(m.params.request.url.slice(0, 200));
    else if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error')
        errors.push('log: ' + m.params.entry.text + (m.params.entry.url ? ' ' + m.params.entry.url : ''));
});

async function evaluate(expr) {
    const r = await send('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails)
        throw new Error('evaluating ' + expr + ': ' + (r.exceptionDetails.exception ?
            r.exceptionDetails.exception.description : r.exceptionDetails.text));
    return r.result.value;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' }, null);
    ({ sessionId } = await send('Target.attachToTarget', { targetId, flatten: true }, null));
    await send('Page.enable');
    await send('Runtime.enable');
    await send('Log.enable');
    await send('Network.enable');
    const loaded = once('Page.loadEventFired');
    await send('Page.navigate', { url });
    await loaded;
    for (let i = 0; i < steps.length; i++) {
        const s = steps[i], colon = s.indexOf(':'), kind = s.slice(0, colon), arg = s.slice(colon + 1);
        let value = null;
        if (kind === 'eval') {
            value = await evaluate(arg);
        } else if (kind === 'click') {
            const p = await evaluate(arg);
            for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased'])
                await send('Input.dispatchMouseEvent', { type, x: p.x, y: p.y, button: 'left',
                                                         clickCount: 1 });
            value = p;
        } else if (kind === 'wait') {
            const end = Date.now() + 20000;
            while (!(value = await evaluate(arg))) {
                if (Date.now() > end)
                    throw new Error('timed out waiting for ' + arg);
                await sleep(100);
            }
        } else if (kind === 'key') {
            await send('Input.dispatchKeyEvent', { type: 'keyDown', key: arg, text: arg });
            await send('Input.dispatchKeyEvent', { type: 'keyUp', key: arg });
        } else if (kind === 'shot') {
            const r = await send('Page.captureScreenshot', { format: 'png' });
            fs.writeFileSync(arg, Buffer.from(r.data, 'base64'));
            value = arg;
        } else {
            throw new Error('unknown step ' + s);
        }
        console.log(JSON.stringify({ step: i, value }));
    }
}

let status = 0;
main().catch((e) => {
    console.log(JSON.stringify({ failure: String(e.message || e) }));
    status = 1;
}).finally(async () => {
    console.log(JSON.stringify({ requests }));
    console.log(JSON.stringify({ errors }));
    try { await Promise.race([send('Browser.close', {}, null), sleep(3000)]); } catch (e) { /* gone */ }
    const exited = new Promise((r) => chrome.exitCode !== null ? r() : chrome.once('exit', r));
    chrome.kill();
    await Promise.race([exited, sleep(5000)]);
    try {
        fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (e) { /* still busy: TEST_TMP's removal takes it */ }
    process.exit(status);
});
