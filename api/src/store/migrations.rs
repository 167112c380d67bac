//! The SQL migrations, embedded by `build.rs`, as sqlx's `Migrator`: read the way
//! `sqlx::migrate!` reads a folder (`<version>_<description>.sql`, `-- no-transaction`), so a
//! database migrated by an earlier build sees the same versions and checksums.

use std::borrow::Cow;

use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/migrations.rs"));
}

pub fn sqlite() -> Migrator {
    migrator(embedded::SQLITE)
}

pub fn postgres() -> Migrator {
    migrator(embedded::POSTGRES)
}

fn migrator(files: &'static [(&'static str, &'static str)]) -> Migrator {
    let migrations = files
        .iter()
        .filter_map(|(name, sql)| {
            let (version, rest) = name.split_once('_')?;
            let migration_type = MigrationType::from_filename(rest);
            let description = rest
                .trim_end_matches(migration_type.suffix())
                .replace('_', " ");
            Some(Migration::new(
                version.parse().ok()?,
                Cow::Owned(description),
                migration_type,
                sqlx::AssertSqlSafe(*sql).into_sql_str(),
                sql.starts_with("-- no-transaction"),
            ))
        })
        .collect::<Vec<_>>();
    Migrator {
        migrations: Cow::Owned(migrations),
        ..Migrator::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// What `sqlx::migrate!` would have embedded from the folder.
    fn from_folder(backend: &str) -> Vec<Migration> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../migrations")
            .join(backend);
        let mut migrations: Vec<_> = sqlx::migrate::resolve_blocking(&dir)
            .expect("the migrations folder resolves")
            .into_iter()
            .map(|(migration, _path)| migration)
            .collect();
        migrations.sort_by_key(|m| m.version);
        migrations
    }

    fn assert_same(embedded: &Migrator, folder: &[Migration]) {
        assert_eq!(embedded.migrations.len(), folder.len());
        for (ours, theirs) in embedded.migrations.iter().zip(folder) {
            assert_eq!(ours.version, theirs.version);
            assert_eq!(ours.description, theirs.description);
            assert_eq!(ours.migration_type, theirs.migration_type);
            assert_eq!(ours.checksum, theirs.checksum, "migration {}", ours.version);
            assert_eq!(ours.no_tx, theirs.no_tx);
        }
    }

    #[test]
    fn the_embedded_sqlite_migrations_are_the_folders_with_the_same_checksums() {
        assert_same(&sqlite(), &from_folder("sqlite"));
    }

    #[test]
    fn the_embedded_postgres_migrations_are_the_folders_with_the_same_checksums() {
        assert_same(&postgres(), &from_folder("postgres"));
    }
}
