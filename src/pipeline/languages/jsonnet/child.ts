/**
 * Evaluates one Jsonnet file in a child process of its own: the library is native code that a
 * worker thread cannot interrupt, and a process can be killed when it runs past its time limit.
 *
 * Reads {"file", "searchPath", "extVars", "maxStack"} on stdin; writes {"ok": true, "json"} or {"ok": false,
 * "message"} on stdout. Kept free of svc imports (and of syntax that Node cannot strip) so that
 * Node runs it directly, from src/ as from dist/.
 */
import { Jsonnet } from '@hanazuki/node-jsonnet';

interface ChildRequest {
  file: string;
  searchPath: string;
  extVars: Record<string, string>;
  maxStack: number;
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChildRequest;
  const vm = new Jsonnet().setMaxStack(request.maxStack).setMaxTrace(20).addJpath(request.searchPath);
  for (const [name, value] of Object.entries(request.extVars)) vm.extString(name, value);
  try {
    const json = await vm.evaluateFile(request.file);
    process.stdout.write(JSON.stringify({ ok: true, json }));
  } catch (error) {
    process.stdout.write(JSON.stringify({ ok: false, message: String((error as Error).message) }));
  }
}

await main();
