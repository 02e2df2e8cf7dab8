// Validates documents that package doc writes, for its tests:
//
//   node validate.mjs openapi FILE   an OpenAPI 3.1 document: against the OpenAPI 3.1 schema,
//                                     then each Schema Object in it against JSON Schema 2020-12
//   node validate.mjs fnapi FILE     the result of doc: each schema in it against 2020-12
//   node validate.mjs values FILE    FILE is {"doc": <the result of doc>, "values": [{"function":
//                                     name, "result": value} or {"function": name, "chunk":
//                                     value}]}: each value against the function's schema
//
// Prints the problems and exits 1 when the document is not valid.
import { readFileSync } from "node:fs";
import { argv, exit } from "node:process";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";

const [mode, file] = argv.slice(2);
const doc = JSON.parse(readFileSync(file, "utf8"));
const problems = [];

if (mode === "openapi") {
	const v = new Validator();
	const res = await v.validate(doc);
	if (!res.valid) {
		problems.push({ where: "OpenAPI schema", errors: res.errors });
	} else if (v.version !== "3.1") {
		problems.push({ where: "version", errors: `validated as ${v.version}, not 3.1` });
	}
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
const checkSchema = (where, schema) => {
	if (schema === undefined) {
		problems.push({ where, errors: "no schema" });
	} else if (!ajv.validateSchema(schema)) {
		problems.push({ where, errors: ajv.errors });
	}
};
const eachMedia = (where, content) => {
	for (const [type, media] of Object.entries(content ?? {})) {
		checkSchema(`${where} ${type}`, media.schema);
	}
};

if (mode === "openapi") {
	for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) {
		checkSchema(`components.schemas.${name}`, s);
	}
	for (const [path, item] of Object.entries(doc.paths ?? {})) {
		for (const [method, op] of Object.entries(item)) {
			const at = `${method.toUpperCase()} ${path}`;
			for (const p of op.parameters ?? []) {
				if (p.schema !== undefined) checkSchema(`${at} parameter ${p.name}`, p.schema);
				eachMedia(`${at} parameter ${p.name}`, p.content);
			}
			eachMedia(`${at} body`, op.requestBody?.content);
			for (const [status, r] of Object.entries(op.responses ?? {})) {
				eachMedia(`${at} ${status}`, r.content);
			}
		}
	}
} else if (mode === "fnapi") {
	for (const f of doc.functions ?? []) {
		checkSchema(`${f.name} arguments`, f.arguments);
		checkSchema(`${f.name} result`, f.result);
		if (f.streaming) checkSchema(`${f.name} chunk`, f.streaming.chunk);
	}
} else if (mode === "values") {
	const fns = Object.fromEntries(doc.doc.functions.map((f) => [f.name, f]));
	for (const [i, v] of doc.values.entries()) {
		const f = fns[v.function];
		const schema = "chunk" in v ? f?.streaming?.chunk : f?.result;
		if (schema === undefined) {
			problems.push({ where: `value ${i}`, errors: `no schema for ${v.function}` });
			continue;
		}
		const validate = ajv.compile(schema);
		if (!validate("chunk" in v ? v.chunk : v.result)) {
			problems.push({ where: `value ${i} (${v.function})`, errors: validate.errors });
		}
	}
} else {
	console.error("usage: node validate.mjs openapi|fnapi|values FILE");
	exit(2);
}

if (problems.length > 0) {
	console.log(JSON.stringify(problems, null, 2));
	exit(1);
}
console.log("valid");
