from __future__ import annotations

from pathlib import Path

import pytest

from settings import Settings, SettingsError, load_settings

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDe.abcdefghijklmnopqrstuvwxyz012345678"


def load(tmp_path: Path, **env: str) -> Settings:
    return load_settings(environ=env, env_file=tmp_path / "missing.env")


def test_defaults_run_in_sandbox_mode_with_sqlite_under_var(tmp_path: Path) -> None:
    settings = load(tmp_path)
    assert settings.sandbox_mode
    assert settings.discord_token is None
    assert settings.database_url.startswith("sqlite:///")
    assert settings.database_url.endswith("var/sanctum.db")
    assert settings.log_level == "INFO"
    assert settings.test_guild_id is None
    assert settings.default_turn_hours == 24.0
    assert settings.sandbox_turns == 12


def test_values_are_parsed_and_typed(tmp_path: Path) -> None:
    settings = load(
        tmp_path,
        DISCORD_TOKEN=TOKEN,
        SANCTUM_DATABASE_URL="postgresql://u:p@127.0.0.1/sanctum",
        SANCTUM_LOG_LEVEL="debug",
        SANCTUM_TEST_GUILD_ID="1234567890",
        SANCTUM_DEFAULT_TURN_HOURS="0.5",
        SANCTUM_MODERATOR_ROLE="League Staff",
    )
    assert not settings.sandbox_mode
    assert settings.log_level == "DEBUG"
    assert settings.test_guild_id == 1234567890
    assert settings.default_turn_hours == 0.5
    assert settings.moderator_role == "League Staff"


def test_env_file_is_read_and_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("SANCTUM_LOG_LEVEL=WARNING\nSANCTUM_TEST_GUILD_ID=42\n")
    settings = load_settings(environ={"SANCTUM_LOG_LEVEL": "ERROR"}, env_file=env_file)
    assert settings.log_level == "ERROR"
    assert settings.test_guild_id == 42


def test_blank_values_mean_unset(tmp_path: Path) -> None:
    settings = load(tmp_path, DISCORD_TOKEN="  ", SANCTUM_TEST_GUILD_ID="")
    assert settings.discord_token is None
    assert settings.test_guild_id is None


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("SANCTUM_TEST_GUILD_ID", "my-server"),
        ("SANCTUM_TEST_GUILD_ID", "0"),
        ("SANCTUM_DEFAULT_TURN_HOURS", "a day"),
        ("SANCTUM_DEFAULT_TURN_HOURS", "1000"),
        ("SANCTUM_DATABASE_URL", "mysql://x/y"),
        ("SANCTUM_DATABASE_URL", "var/sanctum.db"),
        ("SANCTUM_LOG_LEVEL", "LOUD"),
        ("DISCORD_TOKEN", "not a token"),
        ("SANCTUM_SANDBOX_TURNS", "-3"),
    ],
)
def test_malformed_value_is_one_line_naming_the_key(tmp_path: Path, key: str, value: str) -> None:
    with pytest.raises(SettingsError) as error:
        load(tmp_path, **{key: value})
    message = str(error.value)
    assert key in message
    assert "\n" not in message
