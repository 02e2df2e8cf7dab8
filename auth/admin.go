package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fnapi/fnapi/auth/authapi"
	"go.uber.org/zap"
)

// The default administrator.
const (
	// AdminUser is the name of the administrator EnsureAdmin creates.
	AdminUser = "admin"
	// AdminPasswordEnv names the environment variable that gives the administrator's first
	// password.
	AdminPasswordEnv = "SVC_ADMIN_PASSWORD"
	// AdminPasswordFile is the file, in the data directory, that holds a generated password.
	AdminPasswordFile = "admin-password"
)

// EnsureAdmin creates the administrator AdminUser when the store has no user at all (a first
// start). Its password is WithAdminPassword's, else the environment variable AdminPasswordEnv
// when set; otherwise it is
// generated and written to AdminPasswordFile in dataDir (mode 0600), and the log says where.
// The password itself is never logged. It does nothing when the store has users. Processes
// sharing a store may call it at once: one creates the administrator, and the others leave no
// password file behind.
func (a *Authenticator) EnsureAdmin(ctx context.Context, dataDir string) error {
	us, err := a.store.Users(ctx)
	if err != nil {
		return fmt.Errorf("auth: listing users: %w", err)
	}
	if len(us) > 0 {
		return nil
	}
	password := a.adminPass
	if password == "" {
		password = os.Getenv(AdminPasswordEnv)
	}
	var file string
	if password == "" {
		password = rand.Text() // 26 characters, 130 random bits
		file = filepath.Join(dataDir, AdminPasswordFile)
		if err := writeSecret(file, password+"\n"); err != nil {
			return err
		}
	}
	if err := a.CreateUser(ctx, AdminUser, password, authapi.RoleAdmin); err != nil {
		if errors.Is(err, ErrExists) { // another process sharing the store was first
			if file != "" {
				// Its password is the administrator's, not the one just written.
				if err := os.Remove(file); err != nil {
					return fmt.Errorf("auth: %w", err)
				}
			}
			return nil
		}
		if bad := (*invalidUser)(nil); file == "" && errors.As(err, &bad) {
			// A password given, by the program or the environment, that is too short or long:
			// say which one to change.
			what, fix := AdminPasswordEnv, "set another password, or unset it to have one generated in "+filepath.Join(dataDir, AdminPasswordFile)
			if a.adminPass != "" {
				what, fix = "the administrator's password (WithAdminPassword)", "give another one"
			}
			return fmt.Errorf("auth: %s must hold %d to %d bytes: %s", what, minPasswordLen, maxPasswordLen, fix)
		}
		return err
	}
	if file != "" {
		a.log.Info("auth: created the administrator; its password is in the file", zap.String("user", AdminUser), zap.String("file", file))
	} else {
		a.log.Info("auth: created the administrator with the password from the environment",
			zap.String("user", AdminUser), zap.String("variable", AdminPasswordEnv))
	}
	return nil
}

// writeSecret writes data to path readable by the owner only, replacing the file atomically.
func writeSecret(path, data string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	f, err := os.CreateTemp(dir, ".admin-password-*")
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	defer os.Remove(f.Name()) // after a successful rename there is nothing to remove
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("auth: %w", err)
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return fmt.Errorf("auth: writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("auth: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("auth: writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	return nil
}
