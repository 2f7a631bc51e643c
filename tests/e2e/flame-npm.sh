# flame-npm.sh - sourced by the flame browser tests: installs playwright-core
# (the driver only: it uses Debian's /usr/bin/chromium and never downloads a
# browser) and speedscope from the npm registry into build/npm, once.
# Sets NPMDIR and NODE_PATH; returns non-zero with the reason on stdout.
NPMDIR=$ROOT/build/npm
flame_npm_setup() {
	command -v chromium >/dev/null || { echo "Debian's chromium is not installed (scripts/deps.sh test)"; return 1; }
	command -v node >/dev/null && command -v npm >/dev/null || { echo "node and npm are needed"; return 1; }
	if [ ! -f "$NPMDIR/node_modules/playwright-core/package.json" ] ||
	   [ ! -f "$NPMDIR/node_modules/speedscope/dist/release/index.html" ]; then
		mkdir -p "$NPMDIR" &&
		PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 timeout 300 npm install --prefix "$NPMDIR" --no-audit --no-fund \
			--loglevel=error playwright-core@1.65.1 speedscope@1.25.0 >"$NPMDIR/install.log" 2>&1 ||
			{ echo "npm install of playwright-core and speedscope failed: $(tail -1 "$NPMDIR/install.log")"; return 1; }
	fi
	export NODE_PATH=$NPMDIR/node_modules
}
