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


def test_shards_are_read_as_a_range_or_a_list(tmp_path: Path) -> None:
    assert load(tmp_path, SANCTUM_SHARD_COUNT="8", SANCTUM_SHARD_IDS="2-4").shard_ids == (2, 3, 4)
    settings = load(tmp_path, SANCTUM_SHARD_COUNT="8", SANCTUM_SHARD_IDS="5, 0,2")
    assert settings.shard_count == 8
    assert settings.shard_ids == (0, 2, 5)


def test_by_default_one_process_runs_the_recommended_shards(tmp_path: Path) -> None:
    settings = load(tmp_path)
    assert settings.shard_count is None
    assert settings.shard_ids is None


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SANCTUM_SHARD_IDS": "0-1"}, "SANCTUM_SHARD_IDS needs SANCTUM_SHARD_COUNT"),
        ({"SANCTUM_SHARD_COUNT": "2", "SANCTUM_SHARD_IDS": "1-2"}, "from 0 to 1"),
        ({"SANCTUM_SHARD_COUNT": "2", "SANCTUM_SHARD_IDS": "a"}, "a range such as 0-3"),
        ({"SANCTUM_SHARD_COUNT": "0"}, "SANCTUM_SHARD_COUNT must be at least 1"),
        ({"SANCTUM_STANDBY": "1"}, "SANCTUM_STANDBY needs SANCTUM_SHARD_COUNT"),
        ({"SANCTUM_SHARD_COUNT": "2", "SANCTUM_STANDBY": "maybe"}, "SANCTUM_STANDBY must be"),
        (
            {"SANCTUM_SHARD_COUNT": "2", "SANCTUM_SHARD_LEASE_SECONDS": "0.1"},
            "SANCTUM_SHARD_LEASE_SECONDS must be between 1 and 3600",
        ),
    ],
)
def test_bad_shard_settings_name_the_key(tmp_path: Path, env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load(tmp_path, **env)


def test_node_ids_are_stable_per_shard_set_and_may_be_set(tmp_path: Path) -> None:
    first = load(tmp_path, SANCTUM_SHARD_COUNT="4", SANCTUM_SHARD_IDS="0-1").node_id
    again = load(tmp_path, SANCTUM_SHARD_COUNT="4", SANCTUM_SHARD_IDS="0,1").node_id
    other = load(tmp_path, SANCTUM_SHARD_COUNT="4", SANCTUM_SHARD_IDS="2-3").node_id
    assert first == again
    assert first != other
    assert load(tmp_path, SANCTUM_NODE_ID="eu-1").node_id == "eu-1"


def test_a_standby_has_a_node_id_of_its_own_and_a_lease_time(tmp_path: Path) -> None:
    primary = load(tmp_path, SANCTUM_SHARD_COUNT="2")
    standby = load(
        tmp_path, SANCTUM_SHARD_COUNT="2", SANCTUM_STANDBY="1", SANCTUM_SHARD_LEASE_SECONDS="5"
    )
    assert not primary.standby and primary.shard_lease_seconds == 30.0
    assert standby.standby and standby.shard_lease_seconds == 5.0
    assert standby.node_id != primary.node_id
