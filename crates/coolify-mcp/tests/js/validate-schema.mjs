// Validate a JSON file against a JSON schema (draft-07) with ajv and ajv-formats, both already in
// node_modules/ through the TypeScript SDK. Usage: node validate-schema.mjs SCHEMA FILE
// Prints one JSON line: {valid, errors}.
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const [schemaPath, filePath] = process.argv.slice(2);
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
const valid = validate(JSON.parse(readFileSync(filePath, 'utf8')));
process.stdout.write(JSON.stringify({ valid, errors: validate.errors ?? [] }) + '\n');
