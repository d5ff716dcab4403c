package main

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"go.starlark.net/starlark"
)

// readFunc returns a file of the repository at the build's commit; found is false when the file
// does not exist.
type readFunc func(path string) (content string, found bool, err error)

// moduleLoader runs the files that load() names, each once per evaluation, on the evaluation's own
// thread so that their steps count against the same limit.
type moduleLoader struct {
	readFile readFunc
	modules  map[string]*loadedModule
	// loading lists the files whose top level is running, outermost first, to report a cycle.
	loading []string
}

// errNoSuchFile is named with the resolved path when that differs from the name load() was given.
var errNoSuchFile = errors.New("no such file in the repository")

type loadedModule struct {
	globals starlark.StringDict
	err     error
}

func newModuleLoader(readFile readFunc, entryPath string) *moduleLoader {
	return &moduleLoader{readFile: readFile, modules: map[string]*loadedModule{}, loading: []string{entryPath}}
}

// execEntry runs the top level of the pipeline file itself.
func (l *moduleLoader) execEntry(thread *starlark.Thread, source string) (starlark.StringDict, error) {
	return starlark.ExecFile(thread, l.loading[0], source, nil)
}

// load implements Thread.Load. Module names are paths from the repository root; a name starting
// with ./ or ../ is relative to the directory of the file that loads it. The interpreter prefixes
// errors with "cannot load <name>:" and places them at the load statement.
func (l *moduleLoader) load(thread *starlark.Thread, name string) (starlark.StringDict, error) {
	// The innermost frame is the top level of the file whose load statement is running.
	from := thread.CallFrame(0).Pos.Filename()
	modulePath, err := resolveModulePath(from, name)
	if err != nil {
		return nil, err
	}
	if cycle := l.cycleThrough(modulePath); cycle != "" {
		return nil, fmt.Errorf("load cycle: %s", cycle)
	}
	module, ok := l.modules[modulePath]
	if !ok {
		// Thread.Load's contract: the same name always gives the same module, or the same error.
		module = l.run(thread, modulePath)
		l.modules[modulePath] = module
	}
	if errors.Is(module.err, errNoSuchFile) && name != modulePath {
		return nil, fmt.Errorf("%s: %w", modulePath, module.err)
	}
	return module.globals, module.err
}

func (l *moduleLoader) run(thread *starlark.Thread, modulePath string) *loadedModule {
	source, found, err := l.readFile(modulePath)
	if err != nil {
		return &loadedModule{err: fmt.Errorf("reading %s: %w", modulePath, err)}
	}
	if !found {
		return &loadedModule{err: errNoSuchFile}
	}
	l.loading = append(l.loading, modulePath)
	defer func() { l.loading = l.loading[:len(l.loading)-1] }()
	globals, err := starlark.ExecFile(thread, modulePath, source, nil)
	return &loadedModule{globals: globals, err: err}
}

// cycleThrough returns "a.star → b.star → a.star" if modulePath is already being loaded.
func (l *moduleLoader) cycleThrough(modulePath string) string {
	for i, loading := range l.loading {
		if loading == modulePath {
			return strings.Join(append(append([]string{}, l.loading[i:]...), modulePath), " → ")
		}
	}
	return ""
}

// resolveModulePath turns a load() name into a clean path from the repository root, refusing paths
// that leave the repository.
func resolveModulePath(from, name string) (string, error) {
	var joined string
	if strings.HasPrefix(name, "./") || strings.HasPrefix(name, "../") {
		joined = path.Join(path.Dir(from), name)
	} else {
		joined = path.Clean(strings.TrimLeft(name, "/"))
	}
	if joined == "." || joined == ".." || strings.HasPrefix(joined, "../") {
		return "", fmt.Errorf("%q is not a file inside the repository", name)
	}
	return joined, nil
}
