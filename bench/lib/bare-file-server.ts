import { spawn } from 'node:child_process';

/**
 * The least any HTTP server can do for a stored answer: a bare `node:http` server process that, for
 * every request, reads `file` and sends its bytes as JSON. It shows what HTTP itself costs a large
 * answer on this machine, client included, next to svc's route and the in-process read.
 */
export async function startBareFileServer(file: string): Promise<{ url: string; stop: () => void }> {
  const script =
    "const fs=require('node:fs');require('node:http').createServer((q,s)=>{const b=fs.readFileSync(process.argv[1]);" +
    "s.writeHead(200,{'content-type':'application/json','content-length':b.length});s.end(b)})" +
    ".listen(0,'127.0.0.1',function(){console.log(this.address().port)})";
  const child = spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the bare file server exited with ${code}`)));
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => void child.kill() };
}
