// A C++ bot: reads each turn of the referee protocol and answers PASS (1.2 draft: the default pick).
#include <iostream>
#include <string>

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {        // my player line
        std::getline(std::cin, line);              // the opponent's
        int hand = 0, actions = 0, cards = 0;
        std::cin >> hand >> actions;
        std::getline(std::cin, line);
        for (int i = 0; i < actions; ++i) std::getline(std::cin, line);
        std::cin >> cards;
        std::getline(std::cin, line);
        for (int i = 0; i < cards; ++i) std::getline(std::cin, line);
        std::cout << "PASS" << std::endl;
    }
    return 0;
}
