const has = () => process.moduleLoadList.some((m) => m.includes('undici'));
for (const m of process.argv.slice(2)) { await import(m); console.log(m, has()); }
