// Preloaded into supergateway (node --require loopback.cjs ...) by
// tests/conformance/run.mjs. supergateway 4.0.0 has no host option: it listens
// on every address (`app.listen(port)`). This makes each TCP listen of the
// process bind 127.0.0.1 instead, so the gateway in front of the bridge is
// reachable from this machine only. run.mjs checks the result in /proc/net.
'use strict';
const net = require('node:net');

const LOOPBACK = '127.0.0.1';
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
    const first = args[0];
    if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
        // listen(port[, host][, backlog][, callback])
        if (typeof args[1] === 'string') args[1] = LOOPBACK;
        else args.splice(1, 0, LOOPBACK);
    } else if (first !== null && typeof first === 'object' && first.path === undefined && first.fd === undefined) {
        // listen(options[, callback]); a handle or a socket path stays as it is
        if (first.port !== undefined || first.host !== undefined) args[0] = { ...first, host: LOOPBACK };
    } else if (first === undefined || typeof first === 'function') {
        // listen([callback]): a random port on every address
        args.unshift(0, LOOPBACK);
    }
    return listen.apply(this, args);
};
