// SPDX-License-Identifier: MIT
// sp-fold --speedscope's output loaded in speedscope itself (the npm
// package's offline build) in headless Chromium, as a person would open
// it: the profile group's name in the title, each thread's profile
// listed, no error.  Prints PASS/FAIL lines for tests/cli/fold/speedscope.sh.
// usage: node speedscope-browser.js PLAYWRIGHT_DIR INDEX_HTML PROFILE
//            NAME FIRST_PROFILE NPROFILES OUTDIR
'use strict';
const [pwdir, index, profile, name, first, nprofiles, outdir] =
    process.argv.slice(2);
const { chromium } = require(pwdir);

let failed = 0;
function check(what, ok, detail) {
	console.log((ok ? 'PASS ' : 'FAIL ') + what);
	if (!ok) {
		console.log('    ' + detail);
		failed++;
	}
}

(async () => {
	const browser = await chromium.launch({
		executablePath: '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu'],
	});
	const page = await browser.newPage({ viewport: { width: 1400,
	    height: 800 } });
	const errors = [];
	page.on('pageerror', (e) => errors.push(String(e)));
	page.on('dialog', (d) => { errors.push('dialog: ' + d.message());
		d.dismiss(); });
	// As a person does: Browse, and pick the file.
	await page.goto('file://' + index);
	await page.setInputFiles('input[type=file]', profile);
	let title = '';
	for (let i = 0; i < 100 && !title.includes(name); i++) {
		await page.waitForTimeout(100);
		title = await page.title();
	}
	check('speedscope: the profile loads (title "' + title + '")',
	    title.includes(name), 'errors: ' + errors.join('; '));
	const text = await page.evaluate(() => document.body.innerText);
	check('speedscope: the first thread\'s profile is shown ("' + first +
	    '")', text.includes(first), text.slice(0, 300));
	check('speedscope: it counts ' + nprofiles + ' profiles (one a thread)',
	    text.includes('(1/' + nprofiles + ')'), text.slice(0, 300));
	check('speedscope: the Time Order view is there',
	    text.includes('Time Order'), text.slice(0, 300));
	check('speedscope: no page error', errors.length === 0,
	    errors.join('; '));
	await page.screenshot({ path: outdir + '/speedscope.png' });
	await browser.close();
	process.exit(failed ? 1 : 0);
})().catch((e) => {
	console.log('FAIL speedscope: the browser run failed');
	console.log('    ' + String(e));
	process.exit(1);
});
