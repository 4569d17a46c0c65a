// SPDX-License-Identifier: GPL-2.0
/*
 * The deploy files checked without a cluster or a container engine (tests/e2e/test_deploy.sh):
 *
 *   node validate.mjs k8s FILE...        every YAML document against the Kubernetes
 *                                        OpenAPI schema: kubernetes-models' validators
 *                                        (types, required fields, enums, formats), and
 *                                        with no unknown field (TypeScript's excess
 *                                        property check against kubernetes-models' types,
 *                                        as kubectl's strict field validation refuses them)
 *   node validate.mjs json FILE...       every YAML document as one JSON line (for jq)
 *   node validate.mjs containerfile FILE the Containerfile's syntax (dockerfile-utils)
 *
 * One TAP-like line per document or file, "ok ..." or "not ok ... reason"; exit 1 when
 * any is not ok. Run from the directory npm ci installed these packages in.
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

let failed = 0;
const say = (ok, what) => {
	if (!ok)
		failed++;
	console.log(`${ok ? "ok" : "not ok"} ${what}`);
};

/* Every document of every file: { file, n, obj }, or a parse error said. */
function documents(files) {
	const docs = [];

	for (const file of files) {
		parseAllDocuments(readFileSync(file, "utf8")).forEach((d, i) => {
			if (d.errors.length)
				say(false, `${file}#${i + 1}: YAML: ${d.errors[0].message}`);
			else if (d.contents !== null)
				docs.push({ file, n: i + 1, obj: d.toJS() });
		});
	}
	return docs;
}

/* kubernetes-models' module and model class for a document: "apps/v1" -> DaemonSet. */
async function model(obj) {
	const path = `kubernetes-models/${obj.apiVersion}`;
	let mod;

	try {
		mod = await import(path);
	} catch {
		return null;
	}
	return mod[obj.kind] ? { path, cls: mod[obj.kind] } : null;
}

/*
 * Unknown fields: each document as an object literal typed with its model's interface;
 * tsc reports a property the type does not have ("Object literal may only specify known
 * properties") at its line. Returns { index: [messages] }.
 */
async function unknown_fields(docs, models) {
	const ts = (await import("typescript")).default;
	const dir = mkdtempSync(join(process.cwd(), ".check-"));
	const file = join(dir, "manifests.ts");
	const starts = [];
	let src = "", line = 0;

	docs.forEach((d, i) => {
		const m = models[i];
		const body = `export const doc${i}: import("${m.path}").I${d.obj.kind} = ` +
			     JSON.stringify(d.obj, null, 1) + ";\n";

		starts.push(line);
		src += body;
		line += body.split("\n").length - 1;
	});
	writeFileSync(file, src);
	const program = ts.createProgram([file], {
		noEmit: true, strict: true, skipLibCheck: true, types: [],
		module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16,
		target: ts.ScriptTarget.ES2020,
	});
	const out = {};
	for (const diag of ts.getPreEmitDiagnostics(program)) {
		const at = diag.file && diag.start !== undefined ?
			diag.file.getLineAndCharacterOfPosition(diag.start).line : 0;
		let i = starts.length - 1;

		while (i > 0 && starts[i] > at)
			i--;
		(out[i] ??= []).push(ts.flattenDiagnosticMessageText(diag.messageText, " "));
	}
	rmSync(dir, { recursive: true, force: true });
	return out;
}

async function k8s(files) {
	const docs = documents(files);
	const models = [];

	for (const d of docs) {
		const m = d.obj && d.obj.apiVersion && d.obj.kind ? await model(d.obj) : null;

		models.push(m);
		if (!m) {
			say(false, `${d.file}#${d.n}: no Kubernetes model for ` +
			    `${d.obj?.apiVersion}/${d.obj?.kind}`);
			continue;
		}
		try {
			new m.cls(d.obj).validate();
		} catch (e) {
			models[models.length - 1] = null;
			say(false, `${d.file}#${d.n} ${d.obj.kind} ${d.obj.metadata?.name}: schema: ${e.message}`);
		}
	}
	const known = docs.filter((d, i) => models[i]);
	const problems = await unknown_fields(known, models.filter(Boolean));
	known.forEach((d, i) => {
		const p = problems[i];

		say(!p, `${d.file}#${d.n} ${d.obj.kind} ${d.obj.metadata?.name}` +
		    (p ? `: ${p.join("; ")}` : ": valid, no unknown field"));
	});
	if (!docs.length)
		say(false, "no document");
}

async function containerfile(file) {
	const { validate } = await import("dockerfile-utils");
	const problems = validate(readFileSync(file, "utf8"));

	for (const p of problems)
		say(false, `${file}:${p.range.start.line + 1}: ${p.message}`);
	if (!problems.length)
		say(true, `${file}: valid`);
}

const [what, ...files] = process.argv.slice(2);
if (what === "k8s")
	await k8s(files);
else if (what === "json")
	for (const d of documents(files))
		console.log(JSON.stringify(d.obj));
else if (what === "containerfile")
	await containerfile(files[0]);
else
	say(false, "usage: node validate.mjs k8s|json|containerfile FILE...");
process.exit(failed ? 1 : 0);
