// Stages and packs the npm packages (scripts/package-npm runs it):
//
//   node npm/pack.mjs OUT_DIR VERSION [TARGET=BINARY]...
//
// OUT_DIR gets the tarball of the main package `mcp-bridge-vscode` (the
// launcher, optionalDependencies on every platform package of
// platforms.json at VERSION) and one tarball per TARGET=BINARY: the platform
// package of that Rust target triple (platforms.json), with BINARY as its
// bin/ file. Prints the path of each tarball.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const [out, version, ...binaries] = process.argv.slice(2);
if (!out || !/^\d+\.\d+\.\d+/.test(version ?? '')) {
    process.stderr.write('usage: node npm/pack.mjs OUT_DIR VERSION [TARGET=BINARY]...\n');
    process.exit(2);
}
const platforms = JSON.parse(readFileSync(join(here, 'platforms.json'), 'utf8'));
const main = JSON.parse(readFileSync(join(here, 'mcp-bridge-vscode', 'package.json'), 'utf8'));
mkdirSync(out, { recursive: true });
const stage = mkdtempSync(join(tmpdir(), 'mcp-bridge-npm-'));

/** `npm pack` of a staged folder into OUT_DIR; returns the tarball's path. */
function pack(dir) {
    const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', resolve(out)], { cwd: dir, encoding: 'utf8' });
    return join(resolve(out), name.trim().split('\n').pop());
}

function copyCommon(dir) {
    for (const file of ['LICENSE-MIT', 'LICENSE-APACHE']) copyFileSync(join(root, file), join(dir, file));
}

try {
    const tarballs = [];
    // The main package: the launcher and the list of platforms.
    const mainDir = join(stage, 'main');
    mkdirSync(join(mainDir, 'bin'), { recursive: true });
    copyFileSync(join(here, 'mcp-bridge-vscode', 'bin', 'mcp-bridge-vscode.js'), join(mainDir, 'bin', 'mcp-bridge-vscode.js'));
    chmodSync(join(mainDir, 'bin', 'mcp-bridge-vscode.js'), 0o755);
    copyFileSync(join(here, 'platforms.json'), join(mainDir, 'platforms.json'));
    copyFileSync(join(root, 'README.md'), join(mainDir, 'README.md'));
    copyCommon(mainDir);
    main.version = version;
    main.optionalDependencies = Object.fromEntries(platforms.map((p) => [p.package, version]));
    writeFileSync(join(mainDir, 'package.json'), JSON.stringify(main, null, 2) + '\n');
    tarballs.push(pack(mainDir));

    for (const pair of binaries) {
        const at = pair.indexOf('=');
        const [target, binary] = [pair.slice(0, at), pair.slice(at + 1)];
        const platform = platforms.find((p) => p.target === target);
        if (at < 1 || !platform) throw new Error(`not a TARGET=BINARY of platforms.json: ${pair}`);
        const dir = join(stage, platform.package);
        mkdirSync(join(dir, 'bin'), { recursive: true });
        copyFileSync(binary, join(dir, 'bin', platform.binary));
        chmodSync(join(dir, 'bin', platform.binary), 0o755);
        copyCommon(dir);
        writeFileSync(
            join(dir, 'README.md'),
            `# ${platform.package}\n\nThe \`mcp-bridge-vscode\` binary for ${platform.os} ${platform.cpu} (Rust target \`${target}\`).\n` +
                'Install the package `mcp-bridge-vscode`, which depends on this one on this platform only.\n'
        );
        const manifest = {
            name: platform.package,
            version,
            description: `The mcp-bridge-vscode binary for ${platform.os} ${platform.cpu}`,
            license: main.license,
            repository: main.repository,
            os: [platform.os],
            cpu: [platform.cpu],
            // Yarn's Plug'n'Play unpacks it, so the binary is a real file.
            preferUnplugged: true,
            files: [`bin/${platform.binary}`, 'README.md', 'LICENSE-MIT', 'LICENSE-APACHE'],
        };
        writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
        tarballs.push(pack(dir));
    }
    for (const t of tarballs) console.log(t);
} finally {
    rmSync(stage, { recursive: true, force: true });
}
