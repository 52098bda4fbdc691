// Command kubequiz is a self-hosted quiz and spaced-repetition study server
// for Kubernetes release changes.
//
//	kubequiz serve [flags]         serve the web app
//	kubequiz import [flags] PATH   import question files
//	kubequiz ingest [flags] FILE   ingest changelogs, generate draft questions
//	kubequiz backup [flags] FILE   copy the database while the server runs
//	kubequiz healthcheck [flags]   exit 0 when a running server is healthy
//	kubequiz user add|passwd LOGIN add an account or set its password
//	kubequiz export reviews|cards  write a learner's reviews or cards as CSV
//	kubequiz version               print the version
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // time zones for learners, also in images without zoneinfo
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, the default action again: a second
		// Ctrl-C ends a shutdown that is waiting for slow requests.
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, errHelp) {
		return // the usage asked for has been printed
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubequiz:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// errHelp is returned when -h asked for a command's usage, which has been
// printed: not a failure.
var errHelp = errors.New("help requested")

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `usage: kubequiz <command> [flags]

commands:
  serve        serve the web app
  import       add or update questions from YAML files (-dry-run first)
  ingest       parse changelog files and store draft questions generated from them (-dry-run, -json)
  backup       copy the database to a new file, also while the server runs
  healthcheck  check that a running server answers /healthz (for container health checks)
  user         add an account (user add -admin LOGIN) or set its password (user passwd LOGIN)
  export       write a learner's reviews or cards as CSV (export reviews -user LOGIN)
  version      print the version

Run "kubequiz <command> -h" for a command's flags.`

// run is the whole program, with its environment passed in so that tests can
// run it too.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return usageError{"no command given"}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return serve(ctx, rest, getenv, stdout, stderr)
	case "import":
		return importCmd(ctx, rest, getenv, stdout, stderr)
	case "ingest":
		return ingestCmd(ctx, rest, getenv, stdout, stderr)
	case "backup":
		return backupCmd(ctx, rest, getenv, stdout, stderr)
	case "healthcheck":
		return healthcheck(ctx, rest, getenv, stderr)
	case "user":
		return userCmd(ctx, rest, getenv, stdin, stdout, stderr)
	case "export":
		return exportCmd(ctx, rest, getenv, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "kubequiz", version)
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	fmt.Fprintln(stderr, usage)
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}
