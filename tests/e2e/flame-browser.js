// flame-browser.js - drive a sonde flame SVG in headless Chromium (Debian's
// /usr/bin/chromium through playwright-core, which never downloads a browser).
//
//   node flame-browser.js svg FILE.svg TERM ZOOMNAME SHOT.png
//       loads the SVG, checks it rendered, searches TERM through Ctrl-F and the
//       browser's own prompt, clicks the first frame named ZOOMNAME, then Reset
//       Zoom; prints what it saw as "key value" lines for the shell test to judge
//   node flame-browser.js speedscope INDEX.html PROFILE.json SHOT.png
//       opens speedscope's own app and imports PROFILE through its file input
//
// Needs NODE_PATH pointing at a node_modules with playwright-core.
'use strict';
const { chromium } = require('playwright-core');

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
	'--disable-component-update', '--disable-sync', '--no-first-run'];

function say(k, v) { process.stdout.write(k + ' ' + v + '\n'); }

async function frameState(page) {
	return page.evaluate(() => {
		const gs = Array.from(document.querySelectorAll('#frames > g'));
		return gs.map(g => ({
			title: g.querySelector('title').textContent,
			x: parseFloat(g.querySelector('rect').getAttribute('x')),
			w: parseFloat(g.querySelector('rect').getAttribute('width')),
			fill: g.querySelector('rect').getAttribute('fill'),
			cls: g.getAttribute('class') || '',
			label: g.querySelector('text').textContent,
			shown: g.getBoundingClientRect().width > 0,
		}));
	});
}

async function svgTest(svg, term, zoomName, shot) {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS, headless: true });
	const page = await (await browser.newContext({ viewport: { width: 1300, height: 900 } })).newPage();
	const errors = [];
	page.on('pageerror', e => errors.push(e.message));
	await page.goto('file://' + svg);
	let st = await frameState(page);
	say('frames', st.length);
	say('root', st[0].title);
	// the browser laid the frames out: the root's box is as wide as its rect says
	const rootBox = await page.locator('#frames > g >> nth=0').boundingBox();
	say('rootbox', Math.round(rootBox.width));
	say('truncated', st.filter(f => f.label.endsWith('..')).length);

	// search: Ctrl-F opens the prompt, we answer it as a user would
	page.once('dialog', d => { say('prompt', d.type()); d.accept(term); });
	await page.mouse.move(5, 5);
	await page.keyboard.press('Control+f');
	await page.waitForFunction(() => !document.getElementById('matched').getAttribute('class'));
	say('matched', await page.textContent('#matched'));
	st = await frameState(page);
	say('magenta', st.filter(f => f.fill === 'rgb(230,0,230)').length);
	say('searchbutton', await page.textContent('#search'));

	// hover shows the details line
	const target = page.locator('#frames > g', { has: page.locator('title', { hasText: new RegExp('^' + zoomName + ' \\(') }) }).first();
	await target.hover();
	say('details', await page.textContent('#details'));

	// click to zoom
	const before = await target.locator('rect').getAttribute('width');
	await target.click();
	st = await frameState(page);
	say('zoomwidth', before + ' -> ' + (await target.locator('rect').getAttribute('width')));
	say('parents', st.filter(f => f.cls === 'parent').length);
	say('hidden', st.filter(f => f.cls === 'hide').length);
	say('unzoomshown', await page.locator('#unzoom').isVisible());
	say('url', new URL(page.url()).search);
	if (shot)
		await page.screenshot({ path: shot });

	// reset zoom
	await page.click('#unzoom');
	st = await frameState(page);
	say('afterreset', st.filter(f => f.cls !== '').length + ' classed, root ' + st[0].w);
	say('errors', errors.length ? errors.join(' | ') : 'none');
	await browser.close();
}

async function speedscopeTest(index, profile, shot) {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS, headless: true });
	const page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
	const errors = [];
	const alerts = [];
	page.on('pageerror', e => errors.push(e.message));
	page.on('dialog', d => { alerts.push(d.message()); d.dismiss(); });
	page.on('console', m => { if (m.type() === 'error' || /^Failed to load|Unrecognized format/.test(m.text())) errors.push(m.text().split('\n')[0]); });
	await page.goto('file://' + index);
	await page.setInputFiles('input[type=file]', profile);
	// speedscope names the tab after the imported profile once it has loaded it
	// or says why it could not, in an alert
	for (let i = 0; i < 100 && !alerts.length && !errors.length && !/ - speedscope$/.test(await page.title()); i++)
		await page.waitForTimeout(200);
	say('title', await page.title());
	say('alerts', alerts.length ? alerts.join(' | ') : 'none');
	say('errors', errors.length ? errors.join(' | ') : 'none');
	// the Sandwich view lists every function with its total and self weight
	if (/ - speedscope$/.test(await page.title())) {
		await page.click('text=Sandwich');
		await page.waitForTimeout(500);
		const text = await page.evaluate(() => document.body.innerText);
		say('sandwich', text.replace(/\s+/g, ' '));
	}
	if (shot)
		await page.screenshot({ path: shot });
	await browser.close();
}

const [mode, a, b, c, d] = process.argv.slice(2);
const run = mode === 'svg' ? svgTest(a, b, c, d) : speedscopeTest(a, b, c);
run.catch(e => { say('fatal', e.message.split('\n')[0]); process.exit(1); });
