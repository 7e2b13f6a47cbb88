// The tools, prompts and resources that more than one TypeScript SDK v2 peer serves, each
// defined once. server-v2.mjs (stdio), http-server-v2.mjs (Streamable HTTP) and
// input-server-v2.mjs import this file and offer the ones they serve, in their own order and
// with their own icons: the head of each peer describes its whole surface. Keep every name
// and text stable: the tests assert them exactly, and the HTTP peer must answer as its stdio
// twins do. `icons` is left out of a definition when a peer gives none.

import { ResourceTemplate, completable, inputRequired } from '@modelcontextprotocol/server';
import * as z from 'zod';

const NAMES = ['Ada', 'Alan', 'Grace'];
const COLORS = ['red', 'green', 'blue'];

/** A result with one text block. */
export const text = (value) => ({ content: [{ type: 'text', text: value }] });

/** Waits `ms`, or rejects when the request is aborted. */
export function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const timer = setTimeout(resolve, ms);
        signal.addEventListener(
            'abort',
            () => {
                clearTimeout(timer);
                reject(signal.reason);
            },
            { once: true }
        );
    });
}

/** A progress notification, only to a request with a progressToken (sent back unchanged). */
export async function progress(ctx, i, total, message) {
    const token = ctx.mcpReq._meta?.progressToken;
    if (token === undefined) return;
    await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total, message } });
}

const withIcons = (icons) => (icons === undefined ? {} : { icons });

export function offerEcho(server, icons) {
    server.registerTool(
        'echo',
        { description: 'Echo the text back.', inputSchema: z.object({ text: z.string() }), ...withIcons(icons) },
        async ({ text: value }) => text(value)
    );
}

export function offerAdd(server, icons) {
    server.registerTool(
        'add',
        {
            description: 'Add two integers.',
            inputSchema: z.object({ a: z.number().int(), b: z.number().int() }),
            outputSchema: z.object({ sum: z.number().int() }),
            ...withIcons(icons)
        },
        async ({ a, b }) => ({ content: [], structuredContent: { sum: a + b } })
    );
}

export function offerSlow(server) {
    server.registerTool(
        'slow',
        {
            description: 'Sleep for a while and report progress.',
            inputSchema: z.object({ seconds: z.number(), steps: z.number().int().optional() })
        },
        async ({ seconds, steps }, ctx) => {
            const n = Math.max(steps ?? 2, 1);
            await progress(ctx, 0, n, `step 0 of ${n}`);
            for (let i = 1; i <= n; i++) {
                await sleep((seconds * 1000) / n, ctx.mcpReq.signal);
                await progress(ctx, i, n, `step ${i} of ${n}`);
            }
            return text(`slept ${seconds} s`);
        }
    );
}

export function offerFail(server) {
    server.registerTool(
        'fail',
        { description: 'Fail with the given code and message.', inputSchema: z.object({ code: z.number().int(), message: z.string() }) },
        async ({ message }) => {
            throw new Error(message);
        }
    );
}

export function offerRegister(server) {
    const nameSchema = z.object({ name: z.string() });
    server.registerTool(
        'register',
        { description: 'Register a user by name, asked with a form.', inputSchema: z.object({}) },
        async (_args, ctx) => {
            const answer = ctx.mcpReq.inputResponses?.name;
            if (answer?.action === 'accept') return text(`registered ${answer.content?.name}`);
            if (answer?.action === 'decline') return text('declined');
            if (answer?.action === 'cancel') return text('cancelled');
            return inputRequired({
                inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema }) }
            });
        }
    );
}

export function offerGreet(server, icons) {
    server.registerPrompt(
        'greet',
        {
            description: 'Greet someone by name.',
            argsSchema: z.object({ name: completable(z.string(), (value) => NAMES.filter((n) => n.startsWith(value))) }),
            ...withIcons(icons)
        },
        async ({ name }) => ({
            description: 'Greet someone by name.',
            messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }]
        })
    );
}

export function offerReadme(server, icons) {
    server.registerResource(
        'readme',
        'peer://static/readme',
        { description: 'The static readme of the peer.', mimeType: 'text/plain', ...withIcons(icons) },
        async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the static readme of the peer.' }] })
    );
}

export function offerColor(server, icons) {
    server.registerResource(
        'color',
        new ResourceTemplate('peer://colors/{color}', {
            list: undefined,
            complete: { color: (value) => COLORS.filter((c) => c.startsWith(value)) }
        }),
        { description: 'A color by name.', mimeType: 'text/plain', ...withIcons(icons) },
        async (uri, { color }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `The color is ${color}.` }] })
    );
}
